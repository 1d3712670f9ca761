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
    await recordEvent(tx, { memoryId: id, type: "delete", actor, before: { ...snapshot(m), content: m.content }, reason: "permanently deleted" });
    await tx.query(`DELETE FROM memory_review_items WHERE (memory_id = $1 OR other_memory_id = $1) AND project_id = $2`, [id, tx.projectId]);
    await tx.query(`DELETE FROM memories WHERE id = $1 AND project_id = $2`, [id, tx.projectId]);
  });
}
