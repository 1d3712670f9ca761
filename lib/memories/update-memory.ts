import "server-only";
import { ConflictError } from "../errors/domain-errors";
import type { ProjectSql } from "../db/project-sql";
import { writeProviders } from "../embeddings/active-model";
import { requireMemory } from "./load-memory";
import { MEMORY_COLUMNS, serializeMemory, snapshot, type MemoryRow } from "./memory-row";
import { contentKey } from "./normalize-content";
import { recordEvent } from "./record-event";
import type { Memory, MemoryPatch } from "./schemas";
import { embedForWrite, writeEmbeddings } from "./write-embeddings";

export function versionConflict(current: Memory, given: number): ConflictError {
  return new ConflictError(
    `Memory ${current.id} changed: you edited version ${given}, it is now at version ${current.version}`,
    [{ field: "version", message: "stale version", current }],
    "version_conflict",
  );
}

/** Edits a memory if `patch.version` is still current; content changes are re-embedded. */
export async function updateMemory(sql: ProjectSql, id: string, patch: MemoryPatch, opts: { eventType?: "update" | "import"; batchId?: string } = {}): Promise<Memory> {
  const contentChanges = patch.content !== undefined;
  // Embedding may call a remote endpoint: do it before the transaction.
  const vectors = contentChanges ? await embedForWrite(await writeProviders(sql), patch.content!) : [];
  return sql.transaction(async (tx) => {
    const before = await requireMemory(tx, id, { forUpdate: true });
    if (before.version !== patch.version) throw versionConflict(before, patch.version);
    const sets: string[] = [];
    const params: unknown[] = [id, tx.projectId];
    const set = (col: string, v: unknown, cast = "") => {
      params.push(v);
      sets.push(`${col} = $${params.length}${cast}`);
    };
    if (patch.content !== undefined) {
      set("content", patch.content);
      set("content_key", contentKey(patch.content));
    }
    if (patch.memory_type !== undefined) set("memory_type", patch.memory_type, "::memory_type");
    if (patch.structured_data !== undefined) set("structured_data", patch.structured_data === null ? null : JSON.stringify(patch.structured_data), "::jsonb");
    if (patch.importance_score !== undefined) set("importance_score", patch.importance_score);
    if (patch.confidence !== undefined) set("confidence", patch.confidence);
    const [row] = await tx.query<MemoryRow>(
      `UPDATE memories m SET ${[...sets, "version = version + 1", "updated_at = now()"].join(", ")} WHERE id = $1 AND project_id = $2 RETURNING ${MEMORY_COLUMNS}`,
      params,
    );
    if (contentChanges) await writeEmbeddings(tx, id, before.user_id, vectors);
    const after = serializeMemory(row);
    await recordEvent(tx, {
      memoryId: id,
      type: opts.eventType ?? "update",
      actor: patch.actor ?? "api",
      before: snapshot(before),
      after: snapshot(after),
      reason: patch.reason ?? null,
      batchId: opts.batchId,
    });
    return after;
  });
}
