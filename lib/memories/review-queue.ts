import "server-only";
import { randomUUID } from "node:crypto";
import { conflict, notFound, unprocessable } from "../errors/domain-errors";
import { decodeCursor, encodeCursor, ZCursorTime, ZCursorUuid } from "../pagination/cursor";
import type { ProjectSql } from "../db/project-sql";
import { actorOf, checkSources, lockMemories, setStatusRow } from "./curation-db";
import type { ReviewItem, ReviewListQuery, ReviewResolve, ReviewResolved } from "./curation-schemas";
import { applyMerge, embedMergedContent, suggestFor } from "./merge-memories";
import { loadMemories } from "./load-memory";
import { saveMemory } from "./save-memory";
import type { Dedupe, Memory, MemoryType } from "./schemas";

// The review queue: near duplicates found by the system, and
// memories extracted from conversations, waiting for a person. Nothing extracted is
// saved until it is approved; approval saves through saveMemory, so dedupe applies.

export type ReviewRow = {
  id: string;
  user_id: string;
  kind: ReviewItem["kind"];
  status: ReviewItem["status"];
  memory_id: string | null;
  other_memory_id: string | null;
  candidate: ReviewItem["candidate"];
  similarity: number | null;
  reason: string | null;
  source_session_id: string | null;
  resolution: string | null;
  created_at: Date | string;
  resolved_at: Date | string | null;
};

export const REVIEW_COLUMNS = `id, user_id, kind, status, memory_id, other_memory_id, candidate, similarity, reason,
  source_session_id, resolution, created_at, resolved_at`;

const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());

/** Review rows with their memories embedded (one query for all of them). */
export async function withMemories(sql: ProjectSql, rows: ReviewRow[]): Promise<ReviewItem[]> {
  const ids = [...new Set(rows.flatMap((r) => [r.memory_id, r.other_memory_id]).filter((x): x is string => !!x))];
  const memories = await loadMemories(sql, ids);
  return rows.map((r) => ({
    id: r.id,
    user_id: r.user_id,
    kind: r.kind,
    status: r.status,
    memory_id: r.memory_id,
    other_memory_id: r.other_memory_id,
    memory: (r.memory_id && memories.get(r.memory_id)) || null,
    other_memory: (r.other_memory_id && memories.get(r.other_memory_id)) || null,
    candidate: r.candidate ?? null,
    similarity: r.similarity === null ? null : Number(r.similarity),
    reason: r.reason,
    source_session_id: r.source_session_id,
    resolution: r.resolution,
    created_at: iso(r.created_at)!,
    resolved_at: iso(r.resolved_at),
  }));
}

export async function listReviewItems(sql: ProjectSql, userId: string, q: ReviewListQuery) {
  const after = decodeCursor(q.cursor, "review", [ZCursorTime, ZCursorUuid]);
  const params: unknown[] = [userId, q.status, sql.projectId];
  let where = `user_id = $1 AND status = $2 AND project_id = $3`;
  if (q.kind) {
    params.push(q.kind);
    where += ` AND kind = $${params.length}`;
  }
  if (after) {
    params.push(after[0], after[1]);
    where += ` AND (created_at, id) < ($${params.length - 1}::timestamptz, $${params.length}::uuid)`;
  }
  const rows = await sql.query<ReviewRow>(
    `SELECT ${REVIEW_COLUMNS} FROM memory_review_items WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT ${q.limit + 1}`,
    params,
  );
  const page = rows.slice(0, q.limit);
  const last = page[page.length - 1];
  return {
    data: await withMemories(sql, page),
    next_cursor: rows.length > q.limit && last ? encodeCursor("review", [iso(last.created_at)!, last.id]) : null,
  };
}

async function requireItem(sql: ProjectSql, userId: string, itemId: string, forUpdate = false): Promise<ReviewRow> {
  const [row] = await sql.query<ReviewRow>(
    `SELECT ${REVIEW_COLUMNS} FROM memory_review_items WHERE id = $1 AND user_id = $2 AND project_id = $3 ${forUpdate ? "FOR UPDATE" : ""}`,
    [itemId, userId, sql.projectId],
  );
  if (!row) throw notFound("Review item", itemId);
  if (row.status !== "open") {
    throw conflict(`Review item ${itemId} is already resolved (${row.resolution})`, [{ field: "item_id", message: "already resolved" }]);
  }
  return row;
}

async function markResolved(tx: ProjectSql, itemId: string, resolution: string, memoryId?: string): Promise<ReviewRow> {
  const [row] = await tx.query<ReviewRow>(
    `UPDATE memory_review_items SET status = 'resolved', resolution = $2, resolved_at = now(), memory_id = COALESCE($3, memory_id)
      WHERE id = $1 AND project_id = $4 RETURNING ${REVIEW_COLUMNS}`,
    [itemId, resolution, memoryId ?? null, tx.projectId],
  );
  return row;
}

const PAIR_ACTIONS = new Set(["keep", "merge", "archive"]);
const EXTRACTED_ACTIONS = new Set(["approve", "reject"]);

export async function resolveReviewItem(sql: ProjectSql, userId: string, itemId: string, input: ReviewResolve): Promise<ReviewResolved> {
  const item = await requireItem(sql, userId, itemId);
  const allowed = item.kind === "extracted" ? EXTRACTED_ACTIONS : PAIR_ACTIONS;
  if (!allowed.has(input.action)) {
    throw unprocessable(`A ${item.kind} item is resolved with ${[...allowed].join(", ")}`, [
      { field: "action", message: `not allowed for kind ${item.kind}` },
    ]);
  }
  const actor = actorOf(input.actor);
  const done = async (row: ReviewRow, memory: Memory | null, dedupe: Dedupe | null): Promise<ReviewResolved> => ({
    item: (await withMemories(sql, [row]))[0],
    memory,
    dedupe,
  });

  if (input.action === "approve") return approve(sql, userId, item, input);

  if (input.action === "keep" || input.action === "reject") {
    const row = await sql.transaction(async (tx) => {
      await requireItem(tx, userId, itemId, true);
      return markResolved(tx, itemId, input.action);
    });
    return done(row, null, null);
  }

  let pair = [item.memory_id, item.other_memory_id].filter((x): x is string => !!x);
  if (pair.length !== 2) throw unprocessable(`Review item ${itemId} does not name two memories`, [{ field: "item_id", message: "incomplete pair" }]);

  if (input.action === "archive") {
    const { row, memory } = await sql.transaction(async (tx) => {
      await requireItem(tx, userId, itemId, true);
      const found = await lockMemories(tx, pair);
      const [a, b] = checkSources(pair, found, { field: "memory_ids", userId, requireActive: false });
      // The newer of the two is archived: the established memory stays.
      const newer = new Date(a.created_at) >= new Date(b.created_at) ? a : b;
      const older = newer === a ? b : a;
      const archived = await setStatusRow(tx, newer, "archived", { type: "archive", actor, reason: `review (${item.kind}): archived in favour of ${older.id}` });
      return { row: await markResolved(tx, itemId, "archive"), memory: archived };
    });
    return done(row, memory, null);
  }

  // merge: the older memory first, so its text leads the suggested content
  const current = await loadMemories(sql, pair);
  const sources = checkSources(pair, current, { field: "memory_ids", userId }).sort(
    (a, b) => new Date(a.created_at).getTime() - new Date(b.created_at).getTime() || a.id.localeCompare(b.id),
  );
  pair = sources.map((s) => s.id);
  const content = input.content ?? (await suggestFor(sources)).content;
  const vectors = await embedMergedContent(sql, content);
  const { row, memory } = await sql.transaction(async (tx) => {
    await requireItem(tx, userId, itemId, true);
    const merged = await applyMerge(tx, { ids: pair, content, actor, reason: `review (${item.kind})` }, vectors, { userId, field: "memory_ids" });
    return { row: await markResolved(tx, itemId, "merge"), memory: merged };
  });
  const { merged_from: _f, batch_id: _b, ...plain } = memory;
  return done(row, plain, null);
}

/**
 * Approve an extracted candidate: save through saveMemory (embedding and, with a chat
 * model, the dedupe decision happen before any transaction) and resolve the item inside
 * the save's own transaction, so the memory and the resolved item commit together. A
 * concurrent resolve makes the second one a 409 and rolls its save back.
 */
async function approve(sql: ProjectSql, userId: string, item: ReviewRow, input: ReviewResolve): Promise<ReviewResolved> {
  const c = item.candidate;
  if (!c) throw unprocessable(`Review item ${item.id} has no candidate`, [{ field: "item_id", message: "no candidate" }]);
  let resolved: ReviewRow | undefined;
  const saved = await saveMemory(
    sql,
    userId,
    {
      memory_type: (input.memory_type ?? c.memory_type) as MemoryType,
      content: input.content ?? c.content,
      structured_data: c.structured_data ?? null,
      importance_score: input.importance_score ?? c.importance_score,
      source_session_id: item.source_session_id,
      actor: actorOf(input.actor),
    },
    async (tx, memory) => {
      [resolved] = await tx.query<ReviewRow>(
        `UPDATE memory_review_items SET status = 'resolved', resolution = 'approve', resolved_at = now(), memory_id = $2
          WHERE id = $1 AND status = 'open' AND project_id = $3 RETURNING ${REVIEW_COLUMNS}`,
        [item.id, memory.id, tx.projectId],
      );
      if (!resolved) throw conflict(`Review item ${item.id} is already resolved`, [{ field: "item_id", message: "already resolved" }]);
      // Provenance: the turn the candidate was found in (a save that landed on an older memory keeps that one's).
      if (c.source_message_id)
        await tx.query(
          `UPDATE memories SET source_message_id = $2 WHERE project_id = $4 AND id = $1 AND source_message_id IS NULL AND source_session_id IS NOT DISTINCT FROM $3`,
          [memory.id, c.source_message_id, item.source_session_id, tx.projectId],
        );
    },
  );
  return { item: (await withMemories(sql, [resolved!]))[0], memory: saved.memory, dedupe: saved.dedupe };
}

/** Queues extracted candidates (one transaction) and returns them as review items. */
export async function queueExtracted(
  sql: ProjectSql,
  userId: string,
  conversationId: string,
  candidates: { candidate: NonNullable<ReviewItem["candidate"]>; reason: string }[],
): Promise<ReviewItem[]> {
  if (!candidates.length) return [];
  const rows = await sql.transaction(async (tx) => {
    const out: ReviewRow[] = [];
    for (const c of candidates) {
      const [row] = await tx.query<ReviewRow>(
        `INSERT INTO memory_review_items (id, user_id, kind, candidate, reason, source_session_id, created_at, project_id)
         VALUES ($1, $2, 'extracted', $3::jsonb, $4, $5, clock_timestamp(), $6) RETURNING ${REVIEW_COLUMNS}`,
        [randomUUID(), userId, JSON.stringify(c.candidate), c.reason, conversationId, tx.projectId],
      );
      out.push(row);
    }
    return out;
  });
  return withMemories(sql, rows);
}
