import "server-only";
import { randomUUID } from "node:crypto";
import type { ProjectSql } from "../db/project-sql";
import { dropUserVectorIndexes } from "./drop-user-indexes";
import { redact, redactJson } from "./erase-text";
import { ANCHORED_FROM, ANCHORS, type Anchor, type AnchorBatches } from "./erase-anchors";
import { USER_TABLES, userHasRows, type TableCounts } from "./user-tables";

// Erasure of one end user (GDPR article 17), in batches:
// 1. mark: a row in privacy_erasures, set under the write guard's exclusive lock (migration
//    20261126010000_privacy): transactions that wrote for the user without seeing it finish
//    first (their rows are then visible to the batches); every later write for the user fails;
// 2. batches, each one transaction that adds its rows per table to the mark's counts. A crash
//    or kill loses at most the batch under way, whole: the mark stays, writes stay refused,
//    and running the erasure again goes on from what is left (an empty step costs one query):
//    - the tables before ANCHORED_FROM in USER_TABLES (caches, evals, offloads: their
//      predicates read the user's texts, which the next steps delete), part by part;
//    - the anchored steps (lib/privacy/erase-anchors.ts): a batch of the user's retrievals,
//      memories or turns by id, then every row hanging off those ids, dependents first, one
//      indexed statement per table (a part's subquery would re-read all of the user's ids in
//      every batch, and skip over the rows earlier batches emptied);
//    - the rest of USER_TABLES, part by part: rows the anchors do not reach (a history event
//      whose memory went long ago, counters), usually one empty query a part;
// 3. the per-user vector indexes (their definition names the user);
// 4. end: in one transaction, no row of the user left (else the batches run again) and the
//    mark removed.
// Between batches the event loop gets a turn (setImmediate): the embedded database runs in
// this thread, and other requests are served between two batches, not after the erasure.

export const DEFAULT_ERASE_BATCH = 2000;

export function eraseBatchSize(env: NodeJS.ProcessEnv = process.env): number {
  const n = Number(env.MEMSCOPE_ERASE_BATCH || DEFAULT_ERASE_BATCH);
  return Number.isInteger(n) && n > 0 ? n : DEFAULT_ERASE_BATCH;
}

/** Milliseconds per stage: each table's deletes, and the erasure's other steps. */
export type StageTimes = Record<string, number>;

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
  stages: StageTimes;
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

/** Tables whose deleted ids the probes check afterwards (GET of each answers 404). */
const ID_TABLES: Record<string, keyof EraseOutcome["erased"]> = { memories: "memoryIds", conversations: "conversationIds", messages: "messageIds" };

/** Runs DELETE statements in a batch's transaction: rows per table, time per table, ids kept. */
export type Deleter = (table: string, text: string, params: unknown[]) => Promise<number>;

export class Batches implements AnchorBatches {
  /**
   * Tables with any row of the project at the start of the round: a delete from one without
   * costs a statement (and its planning) per batch for nothing. A row written meanwhile in a
   * table skipped here is found by the round's final check, and the next round reads it.
   */
  private present = new Set<string>();

  constructor(
    private sql: ProjectSql,
    private userId: string,
    readonly erased: EraseOutcome["erased"],
    readonly stages: StageTimes,
  ) {}

  async startRound() {
    const tables = USER_TABLES.map((u) => u.table);
    const [row] = await this.sql.query<Record<string, boolean>>(
      `SELECT ${tables.map((t) => `EXISTS (SELECT 1 FROM ${t} WHERE project_id = $1) AS ${t}`).join(", ")}`,
      [this.sql.projectId],
    );
    this.present = new Set(tables.filter((t) => row[t]));
  }

  time(stage: string, ms: number) {
    this.stages[stage] = (this.stages[stage] ?? 0) + ms;
  }

  async timed<T>(stage: string, fn: () => Promise<T>): Promise<T> {
    const t = performance.now();
    try {
      return await fn();
    } finally {
      this.time(stage, performance.now() - t);
    }
  }

  /**
   * One transaction: `step` deletes through `del`; the rows it deleted are added to the mark
   * in the same transaction. Resolves with what `step` returns (how many rows it took).
   */
  async run(step: (tx: ProjectSql, del: Deleter) => Promise<number>): Promise<number> {
    const ids: [string, string[]][] = [];
    const n = await this.sql.transaction(async (tx) => {
      // This attempt's rows only: a transaction rolled back for contention runs again (lib/db/retry-contention.ts).
      ids.length = 0;
      const counts: Record<string, number> = {};
      const del: Deleter = async (table, text, params) => {
        if (!this.present.has(table)) return 0;
        const t = performance.now();
        const rows = await tx.query<{ id: string | null }>(`${text} RETURNING ${ID_TABLES[table] ? "id::text" : "NULL::text"} AS id`, params);
        this.time(table, performance.now() - t);
        if (rows.length) {
          counts[table] = (counts[table] ?? 0) + rows.length;
          if (ID_TABLES[table]) ids.push([table, rows.map((r) => r.id!)]);
        }
        return rows.length;
      };
      const took = await step(tx, del);
      if (Object.keys(counts).length) {
        await tx.query(
          `UPDATE privacy_erasures SET counts = counts || (
             SELECT jsonb_object_agg(e.k, coalesce((counts->>e.k)::int, 0) + e.v::int) FROM jsonb_each_text($3::jsonb) AS e(k, v))
            WHERE project_id = $1 AND user_id = $2`,
          [tx.projectId, this.userId, JSON.stringify(counts)],
        );
      }
      return took;
    });
    // Kept once committed (a batch rolled back erased nothing).
    for (const [table, list] of ids) for (const id of list) this.erased[ID_TABLES[table]].push(id);
    await new Promise((r) => setImmediate(r));
    return n;
  }

  /** A table's part (USER_TABLES), `size` rows a transaction until none is left. */
  async part(table: string, part: string, size: number) {
    if (!this.present.has(table)) return;
    for (;;) {
      const n = await this.run((tx, del) =>
        // `ctid = ANY(ARRAY(...))` is a TID scan of the batch's rows; `ctid IN (...)` joined
        // the whole table (a sequential scan of every user's rows) once per batch.
        del(table, `DELETE FROM ${table} WHERE ctid = ANY(ARRAY(SELECT t.ctid FROM ${table} t WHERE ${part} LIMIT ${size}))`, [tx.projectId, this.userId]),
      );
      if (n < size) return;
    }
  }

  /** Up to `n` conversations of the user still there. */
  async userConversations(n: number): Promise<string[]> {
    const rows = await this.sql.query<{ id: string }>(`SELECT id FROM conversations WHERE project_id = $1 AND end_user_id = $2 LIMIT ${n}`, [
      this.sql.projectId,
      this.userId,
    ]);
    return rows.map((r) => r.id);
  }

  /** An anchored step: `size` anchor ids a transaction, each with everything hanging off them. */
  async anchor(a: Anchor, size: number, within: unknown = this.userId) {
    for (;;) {
      const n = await this.run(async (tx, del) => {
        const t = performance.now();
        const rows = await tx.query<{ id: string }>(a.pick(size), [tx.projectId, within]);
        this.time(`${a.name}: pick`, performance.now() - t);
        if (!rows.length) return 0;
        const ids = rows.map((r) => r.id);
        for (const d of a.deletes) await del(d.table, d.sql, [tx.projectId, ids]);
        return ids.length;
      });
      if (n < size) return;
    }
  }
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
  const size = opts.batchSize ?? eraseBatchSize();
  const b = new Batches(sql, userId, { memoryIds: [], conversationIds: [], messageIds: [], texts: [] }, {});
  const { mark: m, resumed } = await b.timed("mark", () => mark(sql, userId));
  // The texts the search probe will look for, read while they are there.
  b.erased.texts = await b.timed("probe texts", () => longestTexts(sql, userId, opts.collectLimit ?? 200));

  const anchoredAt = USER_TABLES.findIndex((u) => u.table === ANCHORED_FROM);
  for (let round = 0; ; round++) {
    await b.timed("tables present", () => b.startRound());
    for (const [i, u] of USER_TABLES.entries()) {
      if (i === anchoredAt) for (const step of ANCHORS) await step(b, size);
      for (const part of u.parts) await b.part(u.table, part, size);
    }
    if (!(await b.timed("check", () => userHasRows(sql, userId)))) break;
    // Only rows written before the mark by a transaction still open could be left; the
    // guard's lock made the mark wait for those, so one more round is the most expected.
    if (round >= 3) throw new Error(`erasure left rows of the user after ${round + 1} rounds`);
  }

  const indexes = await b.timed("vector indexes", () => dropUserVectorIndexes(sql, userId, opts.kind));

  const done = await b.timed("end", () =>
    sql.transaction(async (tx) => {
      if (await userHasRows(tx, userId)) throw new Error(`erasure: rows of the user appeared before the end`);
      await eraseFromImportJobs(tx, userId);
      const [row] = await tx.query<{ counts: TableCounts; finished_at: Date | string }>(
        `DELETE FROM privacy_erasures WHERE project_id = $1 AND user_id = $2 RETURNING counts, now() AS finished_at`,
        [tx.projectId, userId],
      );
      return row;
    }),
  );

  const counts = Object.fromEntries(USER_TABLES.map((u) => [u.table, Number(done.counts[u.table] ?? 0)]));
  return {
    erasureId: m.id,
    startedAt: new Date(m.started_at).toISOString(),
    finishedAt: new Date(done.finished_at).toISOString(),
    counts,
    indexes,
    resumed,
    erased: b.erased,
    stages: b.stages,
  };
}

/**
 * Import jobs whose label, error or problems name the user (a file called `mem0-<id>.json`,
 * issue 39): the id is replaced by ERASED there, as text erasure would. Not rows of the user
 * (a job imports many people), so not in USER_TABLES nor in the counts; run in the erasure's
 * last transaction, and again by a re-run that finishes a failed probe. Import jobs are few
 * per project (one per upload): read whole.
 */
export async function eraseFromImportJobs(tx: ProjectSql, userId: string): Promise<number> {
  const escaped = JSON.stringify(userId).slice(1, -1);
  const jobs = await tx.query<{ id: string; label: string; error: string | null; problems: unknown }>(
    `SELECT id, label, error, problems FROM import_jobs
      WHERE project_id = $1 AND (strpos(label, $2) > 0 OR strpos(coalesce(error, ''), $2) > 0 OR strpos(problems::text, $2) > 0 OR strpos(problems::text, $3) > 0)`,
    [tx.projectId, userId, escaped],
  );
  for (const j of jobs) {
    await tx.query(`UPDATE import_jobs SET label = $3, error = $4, problems = $5::jsonb WHERE project_id = $1 AND id = $2`, [
      tx.projectId,
      j.id,
      redact(j.label, [userId]),
      j.error === null ? null : redact(j.error, [userId]),
      JSON.stringify(redactJson(j.problems, [userId])),
    ]);
  }
  return jobs.length;
}

/**
 * ANALYZE of every table the erasure took rows from (counts are over every run of the
 * erasure, so a re-run that finishes an interrupted one analyzes what the first run touched).
 * The planner's statistics (pg_statistic) sample column values: the user's id, names and
 * texts sat in their most common values and histograms, a copy no probe or receipt listed
 * (issue 39). It is cheap (a sample of at most 30 000 rows a table), and it also keeps the
 * planner from choosing a sequential scan on counts that still include the user's rows.
 * ANALYZE of a table left empty writes no statistics and keeps the old ones: those are
 * deleted where the role may (a superuser: always on the embedded database) and returned in
 * `kept` otherwise, for the receipt to say so.
 */
export async function analyzeErased(sql: ProjectSql, counts: TableCounts): Promise<{ analyzed: string[]; kept: string[] }> {
  const analyzed = Object.entries(counts)
    .filter(([, n]) => n > 0)
    .map(([t]) => t);
  const kept: string[] = [];
  for (const t of analyzed) {
    await sql.exec(`ANALYZE ${t}`);
    const [r] = await sql.query<{ empty: boolean; stats: boolean; su: boolean }>(
      `SELECT NOT EXISTS (SELECT 1 FROM ${t}) AS empty,
              EXISTS (SELECT 1 FROM pg_statistic WHERE starelid = '${t}'::regclass) AS stats,
              coalesce((SELECT rolsuper FROM pg_roles WHERE rolname = current_user), false) AS su`,
    );
    if (!r.empty || !r.stats) continue;
    if (r.su) await sql.query(`DELETE FROM pg_statistic WHERE starelid = '${t}'::regclass`);
    else kept.push(t);
  }
  return { analyzed, kept };
}

/**
 * The user's longest texts (memory contents, turn queries and answers), the most telling to
 * search with afterwards. Top-N by length in the database (no sort of all of them).
 */
async function longestTexts(sql: ProjectSql, userId: string, limit: number): Promise<string[]> {
  const rows = await sql.query<{ s: string }>(
    `SELECT s FROM (
       SELECT x.content AS s FROM memories x WHERE x.project_id = $1 AND x.user_id = $2
       UNION ALL SELECT m.query FROM messages m JOIN conversations c ON c.project_id = m.project_id AND c.id = m.conversation_id WHERE c.project_id = $1 AND c.end_user_id = $2
       UNION ALL SELECT m.answer FROM messages m JOIN conversations c ON c.project_id = m.project_id AND c.id = m.conversation_id WHERE c.project_id = $1 AND c.end_user_id = $2
     ) x WHERE length(btrim(s)) >= 12 ORDER BY length(s) DESC LIMIT $3`,
    [sql.projectId, userId, limit * 2],
  );
  return [...new Set(rows.map((r) => r.s))].slice(0, limit);
}

export function probeTexts(erased: EraseOutcome["erased"], limit = 200): string[] {
  return [...new Set(erased.texts)].sort((a, b) => b.length - a.length).slice(0, limit);
}
