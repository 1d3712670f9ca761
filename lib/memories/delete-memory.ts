import "server-only";
import { ConflictError, ValidationError } from "../errors/domain-errors";
import type { ProjectSql } from "../db/project-sql";
import { requireMemory } from "./load-memory";
import { snapshot } from "./memory-row";
import { recordEvent } from "./record-event";
import type { Actor } from "./schemas";

/**
 * Permanent delete: only of an archived memory, only with explicit confirmation.
 * Its history stays (events have no foreign key) with a final "delete" event.
 */
export async function deleteMemory(sql: ProjectSql, id: string, confirm: boolean, actor: Actor = "api"): Promise<void> {
  await sql.transaction(async (tx) => {
    // An unknown (or another project's) memory is a 404 whatever the query says.
    const m = await requireMemory(tx, id, { forUpdate: true });
    if (!confirm) {
      throw new ValidationError("Permanent delete needs ?confirm=true", [{ field: "confirm", message: "must be true" }], "confirmation_required");
    }
    if (m.status !== "archived") {
      throw new ConflictError("Only archived memories can be deleted permanently: archive it first", [{ field: "status", message: "is active" }], "not_archived");
    }
    // The row and its relations go (relations cascade): the last snapshot keeps what an
    // as-of read needs to show the memory as it was while alive (lib/memories/as-of).
    const relations = await tx.query(
      `SELECT id, source_id, target_id, relation_type, strength, note, created_by, created_at, removed_at
         FROM memory_relations WHERE (source_id = $1 OR target_id = $1) AND project_id = $2 ORDER BY created_at, id`,
      [id, tx.projectId],
    );
    await recordEvent(tx, {
      memoryId: id,
      type: "delete",
      actor,
      before: {
        ...snapshot(m),
        app_id: m.app_id,
        source_session_id: m.source_session_id,
        created_at: m.created_at,
        access_count: m.access_count,
        last_accessed_at: m.last_accessed_at,
        relations,
      },
      reason: "permanently deleted",
    });
    await tx.query(`DELETE FROM memory_review_items WHERE (memory_id = $1 OR other_memory_id = $1) AND project_id = $2`, [id, tx.projectId]);
    await tx.query(`DELETE FROM memories WHERE id = $1 AND project_id = $2`, [id, tx.projectId]);
  });
}
