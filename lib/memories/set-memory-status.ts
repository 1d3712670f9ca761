import "server-only";
import type { ProjectSql } from "../db/project-sql";
import { requireMemory } from "./load-memory";
import { MEMORY_COLUMNS, serializeMemory, snapshot, type MemoryRow } from "./memory-row";
import { recordEvent } from "./record-event";
import type { Actor, Memory } from "./schemas";

/** Archive or restore: the row stays, the change is in history. Idempotent. */
export async function setMemoryStatus(
  sql: ProjectSql,
  id: string,
  status: "active" | "archived",
  opts: { actor?: Actor; reason?: string; batchId?: string } = {},
): Promise<Memory> {
  return sql.transaction(async (tx) => {
    const before = await requireMemory(tx, id, { forUpdate: true });
    if (before.status === status) return before;
    const [row] = await tx.query<MemoryRow>(
      `UPDATE memories m SET status = $2::memory_status, version = version + 1, updated_at = now() WHERE id = $1 AND project_id = $3 RETURNING ${MEMORY_COLUMNS}`,
      [id, status, tx.projectId],
    );
    const after = serializeMemory(row);
    await recordEvent(tx, {
      memoryId: id,
      type: status === "archived" ? "archive" : "restore",
      actor: opts.actor ?? "api",
      before: snapshot(before),
      after: snapshot(after),
      reason: opts.reason ?? null,
      batchId: opts.batchId,
    });
    return after;
  });
}
