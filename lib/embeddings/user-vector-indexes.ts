import { createHash } from "node:crypto";
import type { SqlRunner } from "../db/migrations";
import { LOCK_KEYS, type Database } from "../db/open-database";
import { exactScanMaxMemories } from "../memories/exact-scan-max";

// Per-user HNSW indexes for the largest users of a store.
//
// The model's HNSW index holds every user's vectors. A large user's search walks it with a
// user filter checked on each visited tuple, so in a store of 1 000 000 memories a walk for
// a user of 100 000 visits ~10 tuples for each of theirs (0.3-1.8 s for some queries on
// PostgreSQL, docs/benchmarks.md section 3). A user with at least userVectorIndexMin()
// memories gets a partial index of their own (WHERE model, project and user), so their walk
// is unfiltered over only their rows. Smaller users keep the exact scan or the shared graph.
//
// Built by:
// - the server at start-up (PostgreSQL: in the background; the embedded database: before it
//   serves, since a build there holds the one connection every request needs);
// - PostgreSQL only: in the background when a search meets a large user without one
//   (CREATE INDEX CONCURRENTLY: writes go on during the build);
// - ensureUserVectorIndexes directly (benchmarks, tests).
// After a switch of embedding model, the new model's indexes come at the next start or the
// first search of each large user (until then, that user's search walks the shared graph).
// One build at a time per database (an advisory lock on PostgreSQL; the embedded database
// has one process). Search uses an index only once pg_index says it is valid.
// An erased user's index is dropped by the erasure (lib/privacy/drop-user-indexes.ts: its
// definition names the user). Not yet done: dropping the index of a user who shrinks below
// the threshold (it is only dead weight on writes; it never returns another user's rows).

/** Memories (all statuses) from which a user gets an HNSW index of their own; 0 turns it off. */
export function userVectorIndexMin(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.MEMSCOPE_USER_VECTOR_INDEX_MIN?.trim();
  // Just above the exact-scan limit (5 000 unless MEMSCOPE_EXACT_SCAN_MAX says otherwise):
  // no user size is left to the shared graph's filtered walk (5.2 s p95 for users of 10 000
  // in a 1 000 000-memory store; 62 ms with their own index, docs/benchmarks.md section 3).
  if (!raw) return exactScanMaxMemories(env) + 1;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new Error(`MEMSCOPE_USER_VECTOR_INDEX_MIN must be a whole number >= 0 (got ${raw})`);
  return n;
}

export function userVectorIndexName(model: string, projectId: string, userId: string): string {
  return `memory_embeddings_hnsw_u_${createHash("sha1").update(`${model}\0${projectId}\0${userId}`).digest("hex").slice(0, 24)}`;
}

/**
 * The indexed expression: the normalized vector, not the model index's plain cast. With the
 * same expression both indexes match a large user's walk and the planner, costing them
 * alike, took the model's (seen in EXPLAIN); a query ordering by this expression can only
 * use the user's. Cosine distance is the same for a vector and its normalized form.
 */
export function userVectorIndexExpression(dimensions: number, alias = ""): string {
  const d = Math.trunc(dimensions);
  return `l2_normalize(${alias}embedding::vector(${d}))::vector(${d})`;
}

/** A SQL string literal (standard_conforming_strings is on: only quotes need doubling). */
export function sqlLiteral(s: string): string {
  if (s.includes("\0")) throw new Error("NUL in an SQL literal");
  return `'${s.replace(/'/g, "''")}'`;
}

// Indexes seen valid by this process: an index, once valid, stays so. (Dropped by hand, the
// user's walk becomes a sort of all their rows, exact but slow, until the process restarts.)
const ready = new Set<string>();

/** True when the user's own index exists and is valid (usable by the planner). */
export async function userVectorIndexReady(sql: Pick<SqlRunner, "query">, model: string, projectId: string, userId: string): Promise<boolean> {
  const name = userVectorIndexName(model, projectId, userId);
  if (ready.has(name)) return true;
  const [row] = await sql.query<{ ok: boolean }>(
    `SELECT i.indisvalid AND i.indisready AS ok FROM pg_class c JOIN pg_index i ON i.indexrelid = c.oid WHERE c.relname = $1`,
    [name],
  );
  if (row?.ok) ready.add(name);
  return !!row?.ok;
}

/** An index dropped (an erased user's, lib/privacy): a later build for that name starts afresh. */
export function forgetUserVectorIndex(name: string): void {
  ready.delete(name);
  queued.delete(name);
}

type Db = Pick<Database, "sql" | "withLock"> & { config: { kind: "pglite" | "postgres" } };
export type BuiltIndex = { userId: string; rows: number; index: string; ms: number };

/**
 * Builds the index of one user if it is missing or invalid (a build interrupted by a crash
 * leaves an invalid one behind). Returns null when it was already there.
 */
export async function buildUserVectorIndex(db: Db, model: string, dimensions: number, projectId: string, userId: string): Promise<BuiltIndex | null> {
  const name = userVectorIndexName(model, projectId, userId);
  return db.withLock(LOCK_KEYS.userVectorIndex, async () => {
    const [row] = await db.sql.query<{ valid: boolean }>(
      `SELECT i.indisvalid AND i.indisready AS valid FROM pg_class c JOIN pg_index i ON i.indexrelid = c.oid WHERE c.relname = $1`,
      [name],
    );
    if (row?.valid) {
      ready.add(name);
      return null;
    }
    // Queued by a search: the user may hold most of the store (USER_INDEX_MAX_SHARE).
    if (!row && !(await largeUsers(db.sql, projectId, 1, userId)).length) return null;
    const pg = db.config.kind === "postgres";
    const concurrently = pg ? "CONCURRENTLY " : "";
    // Under the lock no other build of it runs: an invalid index here is a dead build's.
    if (row) await db.sql.exec(`DROP INDEX ${concurrently}IF EXISTS "${name}"`);
    const started = performance.now();
    await db.sql.exec(
      `CREATE INDEX ${concurrently}IF NOT EXISTS "${name}" ON memory_embeddings
         USING hnsw ((${userVectorIndexExpression(dimensions)}) vector_cosine_ops)
         WHERE model = ${sqlLiteral(model)} AND project_id = ${sqlLiteral(projectId)} AND user_id = ${sqlLiteral(userId)}`,
    );
    const ms = performance.now() - started;
    const [{ n }] = await db.sql.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM memory_embeddings WHERE model = $1 AND project_id = $2 AND user_id = $3`,
      [model, projectId, userId],
    );
    ready.add(name);
    return { userId, rows: Number(n), index: name, ms };
  });
}

// A user who holds most of the store gains nothing from a graph of their own: the shared
// graph is then mostly theirs (a filtered walk passes few other rows), and a second graph
// would double the index and every write's cost (e.g. one user of 100 000 alone in a store).
export const USER_INDEX_MAX_SHARE = 0.8;

/**
 * Users of a project with at least `min` memories (all statuses) and at most
 * USER_INDEX_MAX_SHARE of the store's memories, from the trigger-kept counts.
 */
export async function largeUsers(sql: Pick<SqlRunner, "query">, projectId: string, min = userVectorIndexMin(), userId?: string): Promise<string[]> {
  if (min <= 0) return [];
  const rows = await sql.query<{ user_id: string }>(
    `SELECT user_id FROM memory_user_counts WHERE project_id = $1 AND ($4::text IS NULL OR user_id = $4)
      GROUP BY user_id
     HAVING sum(n) >= $2 AND sum(n) <= $3 * (SELECT coalesce(sum(n), 0) FROM memory_user_counts)
      ORDER BY sum(n) DESC, user_id`,
    [projectId, min, USER_INDEX_MAX_SHARE, userId ?? null],
  );
  return rows.map((r) => r.user_id);
}

/**
 * Builds the missing indexes of every large user of every project for `model` (or, without
 * one, for each project's active model). Returns the indexes built.
 */
export async function ensureUserVectorIndexes(db: Db, opts: { model?: string; dimensions?: number; projectId?: string; min?: number } = {}): Promise<BuiltIndex[]> {
  const min = opts.min ?? userVectorIndexMin();
  if (min <= 0) return [];
  const targets = opts.model
    ? await db.sql.query<{ project_id: string; model: string; dimensions: number }>(
        `SELECT DISTINCT project_id, $1::text AS model, $2::int AS dimensions FROM memory_user_counts WHERE ($3::text IS NULL OR project_id = $3)`,
        [opts.model, opts.dimensions ?? null, opts.projectId ?? null],
      )
    : await db.sql.query<{ project_id: string; model: string; dimensions: number }>(
        `SELECT project_id, value->>'model' AS model, (value->>'dimensions')::int AS dimensions FROM app_settings
          WHERE key = 'embeddings.active' AND ($1::text IS NULL OR project_id = $1)`,
        [opts.projectId ?? null],
      );
  const built: BuiltIndex[] = [];
  for (const t of targets) {
    for (const user of await largeUsers(db.sql, t.project_id, min)) {
      const b = await buildUserVectorIndex(db, t.model, Number(t.dimensions), t.project_id, user);
      if (b) built.push(b);
    }
  }
  return built;
}

// One background build queue per process: builds run one after another (each is a long,
// CPU-heavy statement), and a user is queued once.
const queued = new Set<string>();
let chain: Promise<unknown> = Promise.resolve();

/** Queues a background build of one user's index (PostgreSQL only; see the header). */
export function scheduleUserVectorIndex(db: Db, model: string, dimensions: number, projectId: string, userId: string): void {
  if (db.config.kind !== "postgres") return;
  const name = userVectorIndexName(model, projectId, userId);
  if (queued.has(name) || ready.has(name)) return;
  queued.add(name);
  chain = chain
    .then(() => buildUserVectorIndex(db, model, dimensions, projectId, userId))
    .then((b) => b && console.log(`[memscope] built ${b.index} for user ${JSON.stringify(userId)} (${b.rows} vectors) in ${(b.ms / 1000).toFixed(1)} s`))
    .catch((e) => {
      queued.delete(name); // a later search may try again
      console.error(`[memscope] building the vector index of user ${JSON.stringify(userId)} failed: ${(e as Error).message}`);
    });
}

/** Start-up: every large user's index (see the header for when this is awaited). */
export function ensureUserVectorIndexesAtStart(db: Db): Promise<unknown> {
  const run = ensureUserVectorIndexes(db)
    .then((built) => built.forEach((b) => console.log(`[memscope] built ${b.index} (${b.rows} vectors) in ${(b.ms / 1000).toFixed(1)} s`)))
    .catch((e) => console.error(`[memscope] building per-user vector indexes failed: ${(e as Error).message}`));
  chain = chain.then(() => run);
  return run;
}
