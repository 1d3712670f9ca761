import "server-only";
import { randomUUID } from "node:crypto";
import { NotFoundError, conflict, notFound, unprocessable } from "../errors/domain-errors";
import type { ProjectSql } from "../db/project-sql";
import { actorOf, checkSources } from "./curation-db";
import { BULK_LIMIT, type BulkInput, type BulkResult, type BulkUndoResult } from "./curation-schemas";
import { MEMORY_COLUMNS, serializeMemory, snapshot, type MemoryRow } from "./memory-row";
import type { Actor, Memory } from "./schemas";

// Bulk archive / restore / set_type / set_importance over explicit ids or a filter.
// All or nothing: one transaction, one batch_id, one history event per memory that
// actually changed. Events carry reason "bulk:<action>", which is how undo recognises
// a bulk batch; undo is itself a bulk batch (so it can be undone too).

type Ev = { memoryId: string; type: string; before: Memory; after: Memory };

async function insertEvents(tx: ProjectSql, events: Ev[], actor: Actor, reason: string, batchId: string): Promise<void> {
  if (!events.length) return;
  await tx.query(
    `INSERT INTO memory_events (id, memory_id, event_type, actor, before, after, reason, batch_id, project_id, actor_label)
     SELECT x.id, x.memory_id, x.event_type, $5::actor, x.b::jsonb, x.a::jsonb, $6, $7, $9, $10
       FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $8::text[]) AS x(id, memory_id, event_type, b, a)`,
    [
      events.map(() => randomUUID()),
      events.map((e) => e.memoryId),
      events.map((e) => e.type),
      events.map((e) => JSON.stringify(snapshot(e.before))),
      actor,
      reason,
      batchId,
      events.map((e) => JSON.stringify(snapshot(e.after))),
      tx.projectId,
      tx.actorLabel,
    ],
  );
}

function escapeLike(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`);
}

async function selectTargets(tx: ProjectSql, userId: string, input: BulkInput): Promise<Memory[]> {
  if (input.ids) {
    const rows = await tx.query<MemoryRow>(
      `SELECT ${MEMORY_COLUMNS} FROM memories m WHERE m.id = ANY($1::uuid[]) AND m.project_id = $2 ORDER BY m.id FOR UPDATE`,
      [input.ids, tx.projectId],
    );
    const found = new Map(rows.map((r) => [r.id, serializeMemory(r)]));
    try {
      return checkSources(input.ids, found, { field: "ids", userId, requireActive: false });
    } catch (e) {
      // In a bulk request an unknown id is a bad request, not a missing resource.
      if (e instanceof NotFoundError) {
        throw unprocessable("Some ids are not memories of this user: nothing was changed", e.details);
      }
      throw e;
    }
  }
  const f = input.filter ?? {};
  const status = f.status ?? (input.action === "restore" ? "archived" : "active");
  const params: unknown[] = [userId, tx.projectId];
  const where = ["m.user_id = $1", "m.project_id = $2"];
  const add = (clause: string, v: unknown) => {
    params.push(v);
    where.push(clause.replace("?", `$${params.length}`));
  };
  if (status !== "all") add("m.status = ?::memory_status", status);
  if (f.memory_type) add("m.memory_type = ?::memory_type", f.memory_type);
  if (f.q) add("m.content ILIKE '%' || ? || '%'", escapeLike(f.q));
  if (f.min_importance !== undefined) add("m.importance_score >= ?", f.min_importance);
  if (f.max_importance !== undefined) add("m.importance_score <= ?", f.max_importance);
  const rows = await tx.query<MemoryRow>(
    `SELECT ${MEMORY_COLUMNS} FROM memories m WHERE ${where.join(" AND ")} ORDER BY m.id LIMIT ${BULK_LIMIT + 1} FOR UPDATE`,
    params,
  );
  if (rows.length > BULK_LIMIT) {
    throw unprocessable(`The filter matches more than ${BULK_LIMIT} memories: narrow it down`, [
      { field: "filter", message: `matches more than ${BULK_LIMIT}` },
    ]);
  }
  return rows.map(serializeMemory);
}

export async function bulkUpdate(sql: ProjectSql, userId: string, input: BulkInput): Promise<BulkResult> {
  return sql.transaction(async (tx) => {
    const batchId = randomUUID();
    const targets = await selectTargets(tx, userId, input);
    let changed: Memory[];
    let set: string;
    let value: unknown;
    let type: string;
    switch (input.action) {
      case "archive":
        changed = targets.filter((m) => m.status !== "archived");
        [set, value, type] = ["status = $2::memory_status", "archived", "archive"];
        break;
      case "restore":
        changed = targets.filter((m) => m.status !== "active");
        [set, value, type] = ["status = $2::memory_status", "active", "restore"];
        break;
      case "set_type":
        changed = targets.filter((m) => m.memory_type !== input.memory_type);
        [set, value, type] = ["memory_type = $2::memory_type", input.memory_type, "update"];
        break;
      case "set_importance":
        changed = targets.filter((m) => m.importance_score !== input.importance_score);
        [set, value, type] = ["importance_score = $2", input.importance_score, "update"];
        break;
    }
    if (!changed.length) return { batch_id: batchId, affected: 0, ids: [] };
    const rows = await tx.query<MemoryRow>(
      `UPDATE memories m SET ${set}, version = version + 1, updated_at = now() WHERE m.id = ANY($1::uuid[]) AND m.project_id = $3 RETURNING ${MEMORY_COLUMNS}`,
      [changed.map((m) => m.id), value, tx.projectId],
    );
    const after = new Map(rows.map((r) => [r.id, serializeMemory(r)]));
    await insertEvents(
      tx,
      changed.map((m) => ({ memoryId: m.id, type, before: m, after: after.get(m.id)! })),
      actorOf(input.actor),
      `bulk:${input.action}${input.reason ? ` — ${input.reason}` : ""}`,
      batchId,
    );
    return { batch_id: batchId, affected: changed.length, ids: changed.map((m) => m.id) };
  });
}

type EventRow = { memory_id: string; reason: string | null; before: Record<string, unknown> | null; after: Record<string, unknown> | null };

/**
 * Puts back each memory's memory_type, importance_score and status as they were before
 * the batch. Refused with 409 when a memory has changed since (its version moved on)
 * or the batch was already undone; nothing is written then.
 */
export async function undoBulk(sql: ProjectSql, userId: string, batchId: string, actor?: Actor): Promise<BulkUndoResult> {
  return sql.transaction(async (tx) => {
    const events = await tx.query<EventRow>(
      `SELECT e.memory_id, e.reason, e.before, e.after FROM memory_events e JOIN memories m ON m.id = e.memory_id
        WHERE e.batch_id = $1 AND m.user_id = $2 AND m.project_id = $3 AND e.project_id = $3 ORDER BY e.created_at, e.id`,
      [batchId, userId, tx.projectId],
    );
    if (!events.length) throw notFound("Batch", batchId);
    if (events.some((e) => !e.reason?.startsWith("bulk:") || !e.before || !e.after)) {
      throw unprocessable(`Batch ${batchId} is not a bulk operation; undo its changes from each memory's history`, [
        { field: "batch_id", message: "not a bulk batch" },
      ]);
    }
    const undoReason = `bulk:undo ${batchId}`;
    const [again] = await tx.query(`SELECT 1 FROM memory_events WHERE reason = $1 AND project_id = $2 LIMIT 1`, [undoReason, tx.projectId]);
    if (again) throw conflict(`Batch ${batchId} was already undone`, [{ field: "batch_id", message: "already undone" }]);

    const ids = events.map((e) => e.memory_id);
    const rows = await tx.query<MemoryRow>(`SELECT ${MEMORY_COLUMNS} FROM memories m WHERE m.id = ANY($1::uuid[]) AND m.project_id = $2 ORDER BY m.id FOR UPDATE`,
      [ids, tx.projectId],
    );
    const current = new Map(rows.map((r) => [r.id, serializeMemory(r)]));
    const moved = events.filter((e) => current.get(e.memory_id)?.version !== e.after!.version);
    if (moved.length) {
      throw conflict(
        `${moved.length} memories changed after the batch; undo would overwrite those changes`,
        moved.map((e) => ({ field: "memory_id", message: "changed since the batch", id: e.memory_id })),
      );
    }
    const newBatch = randomUUID();
    const updated = await tx.query<MemoryRow>(
      `UPDATE memories m SET memory_type = x.t::memory_type, importance_score = x.i, status = x.s::memory_status,
              version = m.version + 1, updated_at = now()
         FROM unnest($1::uuid[], $2::text[], $3::float8[], $4::text[]) AS x(id, t, i, s)
        WHERE m.id = x.id AND m.project_id = $5 RETURNING ${MEMORY_COLUMNS}`,
      [
        ids,
        events.map((e) => e.before!.memory_type),
        events.map((e) => Number(e.before!.importance_score)),
        events.map((e) => e.before!.status),
        tx.projectId,
      ],
    );
    const after = new Map(updated.map((r) => [r.id, serializeMemory(r)]));
    await insertEvents(
      tx,
      events.map((e) => {
        const before = current.get(e.memory_id)!;
        const a = after.get(e.memory_id)!;
        const type = before.status === a.status ? "update" : a.status === "archived" ? "archive" : "restore";
        return { memoryId: e.memory_id, type, before, after: a };
      }),
      actorOf(actor),
      undoReason,
      newBatch,
    );
    return { batch_id: newBatch, undone_batch_id: batchId, affected: ids.length, ids };
  });
}
