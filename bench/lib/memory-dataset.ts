// The data sets of bench:memories, and their bulk load: SQL batches with lexical vectors
// computed here in JS, the lexical HNSW index dropped during the load and built after it.
//
// "100k": 100 000 memories of one user (the original set).
// "1m": 1 000 000 memories over 10 000 users: three users of 100 000, a few tiers in
//   between (30 000, 10 000, 3 000, 1 000: they place the exact-scan threshold), and 9 854
//   users with tens of memories (10-55, ~32 on average). Rows of all users are interleaved
//   in one shuffled order, as a shared store fills over time, so a user's rows are spread
//   over the table rather than stored together.

import type { Database } from "../../lib/db/open-database";
import { DEFAULT_PROJECT_ID, projectSql } from "../../lib/db/project-sql";
import { writeActiveModel } from "../../lib/embeddings/active-model";
import { toVectorLiteral } from "../../lib/embeddings/embedding-provider";
import { embedLexical, LEXICAL_DIMENSIONS, LEXICAL_MODEL } from "../../lib/embeddings/lexical-embedder";
import { contentKey } from "../../lib/memories/normalize-content";
import { now } from "./common";
import { makeMemoryGenerator, makeRng, makeUuid } from "./memory-text";

export type Scale = "100k" | "1m";
export type PlanUser = { user: string; n: number; tier: string };
export type Plan = { scale: Scale; total: number; users: PlanUser[] };

export const D = LEXICAL_DIMENSIONS;
export const HNSW_INDEX = "memory_embeddings_hnsw_lexical_hash_v1";
// As in the migration (20261122020000_semantic_memories).
const CREATE_INDEX = `CREATE INDEX "${HNSW_INDEX}" ON "memory_embeddings"
  USING hnsw (("embedding"::vector(${D})) vector_cosine_ops) WHERE "model" = '${LEXICAL_MODEL}'`;

export function makePlan(scale: Scale, n100k = 100_000): Plan {
  if (scale === "100k") return { scale, total: n100k, users: [{ user: "bench-user", n: n100k, tier: "single" }] };
  const users: PlanUser[] = [];
  const tier = (label: string, count: number, n: number) => {
    for (let i = 1; i <= count; i++) users.push({ user: `${label}-${String(i).padStart(2, "0")}`, n, tier: label });
  };
  tier("big", 3, 100_000); // the largest users; big-01 is "the largest"
  tier("u30k", 3, 30_000);
  tier("u10k", 10, 10_000);
  tier("u3k", 30, 3_000);
  tier("u1k", 100, 1_000);
  const TOTAL = 1_000_000;
  const USERS = 10_000;
  const rest = TOTAL - users.reduce((a, u) => a + u.n, 0);
  const smallCount = USERS - users.length;
  const r = makeRng(1109);
  const small = Array.from({ length: smallCount }, () => 10 + Math.floor(r() * 46));
  // Scale the draws so the tiers sum to exactly 1 000 000.
  let sum = small.reduce((a, b) => a + b, 0);
  for (let i = 0; sum !== rest; i = (i + 1) % smallCount) {
    const step = sum < rest ? 1 : -1;
    if (step < 0 && small[i] <= 10) continue;
    small[i] += step;
    sum += step;
  }
  small.forEach((n, i) => users.push({ user: `small-${String(i + 1).padStart(4, "0")}`, n, tier: "small" }));
  return { scale, total: TOTAL, users };
}

export type LoadResult = {
  loadMs: number;
  embedMs: number;
  indexMs: number;
  analyzeMs: number;
  rate: number;
  indexSize: string;
  embeddingsSize: string;
  types: Record<string, number>;
  distinct: number;
  reused: boolean;
};

/** True when the database already holds this plan's rows (a kept database, BENCH_DATABASE_URL). */
export async function planLoaded(db: Database, plan: Plan): Promise<boolean> {
  const [row] = await db.sql.query<{ n: string; u: string; idx: boolean }>(
    `SELECT (SELECT coalesce(sum(n), 0) FROM memory_user_counts WHERE project_id = $1) AS n,
            (SELECT count(DISTINCT user_id) FROM memory_user_counts WHERE project_id = $1 AND n > 0) AS u,
            EXISTS (SELECT 1 FROM pg_indexes WHERE indexname = $2) AS idx`,
    [DEFAULT_PROJECT_ID, HNSW_INDEX],
  );
  return Number(row.n) === plan.total && Number(row.u) === plan.users.length && row.idx;
}

/**
 * `buildIndex: false` leaves the shared HNSW graph out (bench:evals: its users of 1 000
 * memories are searched by an exact scan, which never reads the graph; building it over
 * 100 000 vectors in the embedded database takes minutes).
 */
export async function loadPlan(db: Database, plan: Plan, batch: number, opts: { postgres: boolean; buildIndex?: boolean }): Promise<LoadResult> {
  const gen = makeMemoryGenerator(20261122);
  const r = makeRng(7);
  const nowMs = Date.UTC(2026, 10, 22);
  const DAY = 86_400_000;
  // Row i belongs to owner[i]: every user's rows, shuffled into one order.
  const owner = new Uint16Array(plan.total);
  {
    let at = 0;
    plan.users.forEach((u, ui) => owner.fill(ui, at, (at += u.n)));
    if (plan.users.length > 1) {
      const sr = makeRng(31337);
      for (let i = owner.length - 1; i > 0; i--) {
        const j = Math.floor(sr() * (i + 1));
        const t = owner[i];
        owner[i] = owner[j];
        owner[j] = t;
      }
    }
  }
  await db.sql.exec(`DROP INDEX IF EXISTS "${HNSW_INDEX}"`);
  const t0 = now();
  let embedMs = 0;
  const types: Record<string, number> = {};
  const keys = new Set<string>();
  const N = plan.total;
  for (let start = 0; start < N; start += batch) {
    const n = Math.min(batch, N - start);
    const ids: string[] = [], users: string[] = [], mtypes: string[] = [], contents: string[] = [], ckeys: string[] = [], imps: number[] = [];
    const accessCounts: number[] = [], lastAccessed: (string | null)[] = [], created: string[] = [], updated: string[] = [], vecs: string[] = [];
    for (let i = 0; i < n; i++) {
      const m = gen();
      ids.push(makeUuid(r));
      users.push(plan.users[owner[start + i]].user);
      mtypes.push(m.memory_type);
      contents.push(m.content);
      const key = contentKey(m.content);
      ckeys.push(key);
      if (keys.size < 2_000_000) keys.add(key);
      types[m.memory_type] = (types[m.memory_type] ?? 0) + 1;
      imps.push(m.importance);
      const c = nowMs - Math.floor(r() * 730 * DAY);
      created.push(new Date(c).toISOString());
      updated.push(new Date(c + Math.floor(r() * (nowMs - c))).toISOString());
      const accessed = r() < 0.6;
      accessCounts.push(accessed ? 1 + Math.floor(r() * 40) : 0);
      lastAccessed.push(accessed ? new Date(nowMs - Math.floor(r() * 120 * DAY)).toISOString() : null);
      const e0 = now();
      vecs.push(toVectorLiteral(embedLexical(m.content)));
      embedMs += now() - e0;
    }
    await db.sql.transaction(async (tx) => {
      await tx.query(
        `INSERT INTO memories (id, user_id, memory_type, content, content_key, importance_score, access_count, last_accessed_at, created_at, updated_at)
         SELECT u.id, u.user_id, u.t::memory_type, u.content, u.ck, u.imp, u.ac, u.la, u.ca, u.ua
           FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[], $6::float8[], $7::int[], $8::timestamptz[], $9::timestamptz[], $10::timestamptz[])
             AS u(id, user_id, t, content, ck, imp, ac, la, ca, ua)`,
        [ids, users, mtypes, contents, ckeys, imps, accessCounts, lastAccessed, created, updated],
      );
      await tx.query(
        `INSERT INTO memory_embeddings (memory_id, model, user_id, dimensions, embedding)
         SELECT u.id, $2, u.user_id, $3, u.v::vector FROM unnest($1::uuid[], $4::text[], $5::text[]) AS u(id, v, user_id)`,
        [ids, LEXICAL_MODEL, D, vecs, users],
      );
    });
    const done = start + n;
    if (done % (N >= 500_000 ? 50_000 : 10_000) === 0 || done === N) {
      const s = (now() - t0) / 1000;
      console.log(`  loaded ${done.toLocaleString("en")} / ${N.toLocaleString("en")}  ${s.toFixed(1)} s  ${Math.round(done / s).toLocaleString("en")} memories/s`);
    }
  }
  const loadMs = now() - t0;
  console.log(`  types: ${JSON.stringify(types)}; distinct contents: ${keys.size.toLocaleString("en")}`);
  console.log(`Building the HNSW index (m=16, ef_construction=64 defaults) over ${N.toLocaleString("en")} vectors...`);
  const i0 = now();
  if (opts.buildIndex === false) console.log("  (skipped: buildIndex false)");
  // The graph (~1.2 KB a vector at 256-d) must fit in maintenance_work_mem, or the build
  // falls back to a much slower on-disk insert path.
  const mwm = process.env.BENCH_MAINTENANCE_WORK_MEM || (N > 200_000 ? "3GB" : "512MB");
  if (opts.buildIndex === false) {
    /* no graph */
  } else if (opts.postgres) {
    // One transaction, so SET LOCAL holds for the build (a pool hands out any connection).
    await db.sql.transaction(async (tx) => {
      await tx.exec(`SET LOCAL maintenance_work_mem = '${mwm}'`);
      await tx.exec(CREATE_INDEX);
    });
  } else {
    await db.sql.exec(`SET maintenance_work_mem = '${mwm}'`);
    await db.sql.exec(CREATE_INDEX);
    await db.sql.exec(`RESET maintenance_work_mem`);
  }
  const indexMs = now() - i0;
  console.log(`  index built in ${(indexMs / 1000).toFixed(1)} s`);
  await writeActiveModel(projectSql(db.sql, DEFAULT_PROJECT_ID), { model: LEXICAL_MODEL, dimensions: D, kind: "lexical" });
  const a0 = now();
  if (opts.postgres) await db.sql.exec("VACUUM ANALYZE");
  else await db.sql.exec("ANALYZE");
  const analyzeMs = now() - a0;
  const size = opts.buildIndex === false ? { indexSize: "-", embeddingsSize: "-" } : await indexSizes(db);
  return { loadMs, embedMs, indexMs, analyzeMs, rate: N / (loadMs / 1000), ...size, types, distinct: keys.size, reused: false };
}

export async function indexSizes(db: Database): Promise<{ indexSize: string; embeddingsSize: string }> {
  const [size] = await db.sql.query<{ idx: string; tbl: string }>(
    `SELECT pg_size_pretty(pg_relation_size('"${HNSW_INDEX}"')) AS idx, pg_size_pretty(pg_total_relation_size('memory_embeddings')) AS tbl`,
  );
  return { indexSize: size.idx, embeddingsSize: size.tbl };
}
