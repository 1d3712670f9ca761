import "server-only";
import { randomUUID } from "node:crypto";
import type { ProjectSql } from "../db/project-sql";
import { dropUserVectorIndexes } from "./drop-user-indexes";
import { countUserRows, totalOf, USER_TABLES, type TableCounts } from "./user-tables";

// Erasure of one end user (GDPR article 17), in batches:
// 1. mark: a row in privacy_erasures, set under the write guard's exclusive lock (migration
//    20261126010000_privacy): transactions that wrote for the user without seeing it finish
//    first (their rows are then visible to the batches); every later write for the user fails;
// 2. batches: each table of USER_TABLES in order, `batchSize` rows a transaction, the batch's
//    counts added to the mark in the same transaction. A crash or kill loses at most the
//    batch under way, whole: the mark stays, writes stay refused, and running the erasure
//    again goes on from what is left (a table already empty costs one query);
// 3. the per-user vector indexes (their definition names the user);
// 4. end: in one transaction, every table counted again (zero, or the batches run again)
//    and the mark removed.

export const DEFAULT_ERASE_BATCH = 5000;

export function eraseBatchSize(env: NodeJS.ProcessEnv = process.env): number {
  const n = Number(env.MEMSCOPE_ERASE_BATCH || DEFAULT_ERASE_BATCH);
  return Number.isInteger(n) && n > 0 ? n : DEFAULT_ERASE_BATCH;
}

export type EraseOutcome = {
  erasureId: string;
  startedAt: string;
  finishedAt: string;
  /** Rows deleted per table, over every run of this erasure (a resumed one adds to the first). */
  counts: TableCounts;
  /** Per-user vector indexes dropped. */
  indexes: number;
  resumed: boolean;
  /** What this run erased, for the probes (a resumed run knows only its own). */
  erased: { memoryIds: string[]; conversationIds: string[]; messageIds: string[]; texts: string[] };
};

type Mark = { id: string; counts: TableCounts; started_at: Date | string };

/** True while an erasure of the user is under way (or was interrupted): the user is frozen. */
export async function erasureUnderWay(sql: ProjectSql, userId: string): Promise<boolean> {
  const [row] = await sql.query(`SELECT 1 FROM privacy_erasures WHERE project_id = $1 AND user_id = $2`, [sql.projectId, userId]);
  return !!row;
}

/** Sets the mark (or finds the one an interrupted run left). */
async function mark(sql: ProjectSql, userId: string): Promise<{ mark: Mark; resumed: boolean }> {
  return sql.transaction(async (tx) => {
    // Waits for every transaction that already wrote rows of any user (they hold it shared).
    await tx.query(`SELECT pg_advisory_xact_lock(727279)`);
    const [made] = await tx.query<Mark>(
      `INSERT INTO privacy_erasures (project_id, user_id, id, actor) VALUES ($1, $2, $3, $4)
       ON CONFLICT (project_id, user_id) DO NOTHING RETURNING id, counts, started_at`,
      [tx.projectId, userId, randomUUID(), tx.actorLabel],
    );
    if (made) return { mark: made, resumed: false };
    const [old] = await tx.query<Mark>(`SELECT id, counts, started_at FROM privacy_erasures WHERE project_id = $1 AND user_id = $2`, [tx.projectId, userId]);
    return { mark: old, resumed: true };
  });
}

/**
 * Erases every row of the user (see the header). The caller has checked the user exists in
 * the project (an unknown user is a 404 before anything is marked).
 */
export async function eraseUser(
  sql: ProjectSql,
  userId: string,
  opts: { kind: "pglite" | "postgres"; batchSize?: number; collectLimit?: number } = { kind: "postgres" },
): Promise<EraseOutcome> {
  const batch = opts.batchSize ?? eraseBatchSize();
  const { mark: m, resumed } = await mark(sql, userId);
  const erased: EraseOutcome["erased"] = { memoryIds: [], conversationIds: [], messageIds: [], texts: [] };
  const textLimit = opts.collectLimit ?? 200;

  for (let round = 0; ; round++) {
    for (const u of USER_TABLES) {
      for (const part of u.parts) {
        for (;;) {
          const n = await sql.transaction(async (tx) => {
            // Rows come back only where the probes need them, and only the columns they read
            // (the whole row of a memory carries its full-text vector).
            // `ctid = ANY(ARRAY(...))` is a TID scan of the batch's rows; `ctid IN (...)` joined
            // the whole table (a sequential scan of every user's rows) once per batch.
            const returned = COLLECTED[u.table] ?? "NULL::jsonb";
            const rows = await tx.query<{ row: Record<string, unknown> }>(
              `DELETE FROM ${u.table} WHERE ctid = ANY(ARRAY(SELECT t.ctid FROM ${u.table} t WHERE ${part} LIMIT ${batch}))
               RETURNING ${returned} AS row`,
              [tx.projectId, userId],
            );
            if (!rows.length) return 0;
            await tx.query(
              `UPDATE privacy_erasures SET counts = jsonb_set(counts, ARRAY[$3::text], to_jsonb(coalesce((counts->>$3)::int, 0) + $4))
                WHERE project_id = $1 AND user_id = $2`,
              [tx.projectId, userId, u.table, rows.length],
            );
            collect(erased, u.table, rows.map((r) => r.row), textLimit);
            return rows.length;
          });
          if (n < batch) break;
        }
      }
    }
    const left = await countUserRows(sql, userId);
    if (totalOf(left) === 0) break;
    // Only rows written before the mark by a transaction still open could be left; the
    // guard's lock made the mark wait for those, so one more round is the most expected.
    if (round >= 3) throw new Error(`erasure left ${totalOf(left)} rows after ${round + 1} rounds`);
  }

  const indexes = await dropUserVectorIndexes(sql, userId, opts.kind);

  const done = await sql.transaction(async (tx) => {
    const left = await countUserRows(tx, userId);
    if (totalOf(left) !== 0) throw new Error(`erasure: ${totalOf(left)} rows appeared before the end`);
    const [row] = await tx.query<{ counts: TableCounts; finished_at: Date | string }>(
      `DELETE FROM privacy_erasures WHERE project_id = $1 AND user_id = $2 RETURNING counts, now() AS finished_at`,
      [tx.projectId, userId],
    );
    return row;
  });

  const counts = Object.fromEntries(USER_TABLES.map((u) => [u.table, Number(done.counts[u.table] ?? 0)]));
  return {
    erasureId: m.id,
    startedAt: new Date(m.started_at).toISOString(),
    finishedAt: new Date(done.finished_at).toISOString(),
    counts,
    indexes,
    resumed,
    erased,
  };
}

/** What a batch returns per table for the probes (collect below): ids, and texts to search with. */
const COLLECTED: Record<string, string> = {
  memories: "jsonb_build_object('id', id, 'content', content)",
  conversations: "jsonb_build_object('id', id)",
  messages: "jsonb_build_object('id', id, 'query', query, 'answer', answer)",
};

/** Keeps what the probes need: ids (all) and some texts (the longest, most telling ones). */
function collect(into: EraseOutcome["erased"], table: string, rows: Record<string, unknown>[], textLimit: number) {
  const addText = (s: unknown) => {
    if (typeof s !== "string" || s.trim().length < 12) return;
    into.texts.push(s);
    if (into.texts.length > textLimit * 2) {
      into.texts = [...new Set(into.texts)].sort((a, b) => b.length - a.length).slice(0, textLimit);
    }
  };
  for (const r of rows) {
    if (table === "memories") {
      into.memoryIds.push(String(r.id));
      addText(r.content);
    } else if (table === "conversations") into.conversationIds.push(String(r.id));
    else if (table === "messages") {
      into.messageIds.push(String(r.id));
      addText(r.query);
      addText(r.answer);
    }
  }
}

export function probeTexts(erased: EraseOutcome["erased"], limit = 200): string[] {
  return [...new Set(erased.texts)].sort((a, b) => b.length - a.length).slice(0, limit);
}
