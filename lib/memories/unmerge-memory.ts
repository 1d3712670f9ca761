import "server-only";
import { randomUUID } from "node:crypto";
import { unprocessable } from "../errors/domain-errors";
import type { ProjectSql } from "../db/project-sql";
import { actorOf, lockMemories, setStatusRow } from "./curation-db";
import type { ActorReason, UnmergeResult } from "./curation-schemas";
import { requireMemory } from "./load-memory";
import { snapshot } from "./memory-row";
import { recordEvent } from "./record-event";

// Undoes a merge: the sources (found through their live `merged_into` relations to
// this memory) are restored, the merged memory is archived, the relations are marked
// removed. One transaction, one batch_id. A memory that is not a merge result, or
// whose merge was already undone, answers 422.

export async function unmergeMemory(sql: ProjectSql, id: string, input: ActorReason): Promise<UnmergeResult> {
  return sql.transaction(async (tx) => {
    const merged = await requireMemory(tx, id, { forUpdate: true });
    const relations = await tx.query<{ id: string; source_id: string }>(
      `SELECT r.id, r.source_id FROM memory_relations r JOIN memories s ON s.project_id = r.project_id AND s.id = r.source_id
        WHERE r.target_id = $1 AND r.project_id = $2 AND r.relation_type = 'merged_into' AND r.removed_at IS NULL
        ORDER BY s.created_at, s.id`,
      [id, tx.projectId],
    );
    if (!relations.length) {
      throw unprocessable(`Memory ${id} is not the result of a merge, or its merge was already undone`, [
        { field: "id", message: "no live merged_into relation points to this memory" },
      ]);
    }
    const batchId = randomUUID();
    const actor = actorOf(input.actor);
    const why = input.reason ? `: ${input.reason}` : "";
    const sources = await lockMemories(tx, relations.map((r) => r.source_id));

    const restored = [];
    for (const r of relations) {
      const source = sources.get(r.source_id)!;
      const after = await setStatusRow(tx, source, "active", { type: "unmerge", actor, reason: `unmerged from ${id}${why}`, batchId });
      if (after === source) {
        // Already active (restored by hand since): still record that the merge let go of it.
        await recordEvent(tx, { memoryId: source.id, type: "unmerge", actor, before: snapshot(source), after: snapshot(source), reason: `unmerged from ${id}${why}`, batchId });
      }
      restored.push(after);
    }
    await tx.query(`UPDATE memory_relations SET removed_at = now() WHERE id = ANY($1::uuid[]) AND project_id = $2`, [relations.map((r) => r.id), tx.projectId]);
    let memory = await setStatusRow(tx, merged, "archived", {
      type: "unmerge",
      actor,
      reason: `merge undone: ${relations.length} sources restored${why}`,
      batchId,
    });
    if (memory === merged) {
      await recordEvent(tx, { memoryId: id, type: "unmerge", actor, before: snapshot(merged), after: snapshot(merged), reason: `merge undone${why}`, batchId });
      memory = merged;
    }
    return { memory, restored, batch_id: batchId };
  });
}
