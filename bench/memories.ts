// npm run bench:memories — semantic memories at 100 000 rows for one user.
//
// 1. Bulk load through SQL in batches (lexical vectors computed here, in JS), with the
//    lexical HNSW index dropped during the load and rebuilt after (timed).
// 2. In-process: recall@10 of the HNSW path (the search's own settings) against an
//    exact sequential scan, over 100 queries, for a few hnsw.ef_search values.
// 3. Against `next start` on the same folder (our handle closed first: one process per
//    PGlite folder): retrieval p50/p95 over HTTP (200 queries, k=10, dry_run) and the
//    list page's first response (50 requests, plain and filtered/sorted).
//
// Env: BENCH_MEMORIES (default 100000), BENCH_BATCH (2000), BENCH_QUERIES (200),
// BENCH_RECALL_QUERIES (100), BENCH_KEEP_DATA=1 (keep the folder). MEMSCOPE_NEXT_DIST_DIR selects the build `next start` serves.

import fs from "node:fs";
import { DEFAULT_PROJECT_ID, projectSql } from "../lib/db/project-sql";
import path from "node:path";
import { openDatabase, type Database } from "../lib/db/open-database";
import { toVectorLiteral } from "../lib/embeddings/embedding-provider";
import { embedLexical, LEXICAL_DIMENSIONS, LEXICAL_MODEL } from "../lib/embeddings/lexical-embedder";
import { writeActiveModel } from "../lib/embeddings/active-model";
import { contentKey } from "../lib/memories/normalize-content";
import { makeTempDir, measure, ms, now, printMachine, removeDir, ROOT, runMain, stats, type Stats } from "./lib/common";
import { assertBuilt, startBuiltServer } from "./lib/start-server-dist";
import { makeMemoryGenerator, makeQueryGenerator, makeRng, makeUuid } from "./lib/memory-text";

const N = Number(process.env.BENCH_MEMORIES || 100_000);
const BATCH = Number(process.env.BENCH_BATCH || 2000);
const N_QUERIES = Number(process.env.BENCH_QUERIES || 200);
const N_RECALL = Number(process.env.BENCH_RECALL_QUERIES || 100);
const USER = "bench-user";
const K = 10;
const D = LEXICAL_DIMENSIONS;
const INDEX = "memory_embeddings_hnsw_lexical_hash_v1";
// As in the migration (20261122020000_semantic_memories).
const CREATE_INDEX = `CREATE INDEX "${INDEX}" ON "memory_embeddings"
  USING hnsw (("embedding"::vector(${D})) vector_cosine_ops) WHERE "model" = '${LEXICAL_MODEL}'`;

// The vector query of lib/memories/search-memories.ts (candidates: max(50, k*5)).
const VECTOR_N = Math.max(50, K * 5);
const SEARCH_EF = Math.max(400, VECTOR_N); // as lib/memories/search-memories.ts (HNSW_EF_SEARCH)
const VECTOR_SQL = (limit: number) => `SELECT e.memory_id AS id, 1 - (e.embedding::vector(${D}) <=> $3::vector(${D})) AS cosine
   FROM memory_embeddings e JOIN memories m ON m.id = e.memory_id
  WHERE e.model = $1 AND e.user_id = $2 AND m.status = 'active'::memory_status
  ORDER BY e.embedding::vector(${D}) <=> $3::vector(${D})
  LIMIT ${limit}`;

async function load(db: Database) {
  const gen = makeMemoryGenerator(20261122);
  const r = makeRng(7);
  const nowMs = Date.UTC(2026, 10, 22);
  const DAY = 86_400_000;
  await db.sql.exec(`DROP INDEX IF EXISTS "${INDEX}"`);
  const t0 = now();
  let embedMs = 0;
  const types: Record<string, number> = {};
  const keys = new Set<string>();
  for (let start = 0; start < N; start += BATCH) {
    const n = Math.min(BATCH, N - start);
    const ids: string[] = [], mtypes: string[] = [], contents: string[] = [], ckeys: string[] = [], imps: number[] = [];
    const accessCounts: number[] = [], lastAccessed: (string | null)[] = [], created: string[] = [], updated: string[] = [], vecs: string[] = [];
    for (let i = 0; i < n; i++) {
      const m = gen();
      ids.push(makeUuid(r));
      mtypes.push(m.memory_type);
      contents.push(m.content);
      const key = contentKey(m.content);
      ckeys.push(key);
      keys.add(key);
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
        [ids, ids.map(() => USER), mtypes, contents, ckeys, imps, accessCounts, lastAccessed, created, updated],
      );
      await tx.query(
        `INSERT INTO memory_embeddings (memory_id, model, user_id, dimensions, embedding)
         SELECT u.id, $2, $3, $4, u.v::vector FROM unnest($1::uuid[], $5::text[]) AS u(id, v)`,
        [ids, LEXICAL_MODEL, USER, D, vecs],
      );
    });
    const done = start + n;
    if (done % 10_000 === 0 || done === N) {
      const s = (now() - t0) / 1000;
      console.log(`  loaded ${done.toLocaleString("en")} / ${N.toLocaleString("en")}  ${s.toFixed(1)} s  ${Math.round(done / s).toLocaleString("en")} memories/s`);
    }
  }
  const loadMs = now() - t0;
  console.log(`  types: ${JSON.stringify(types)}; distinct contents: ${keys.size.toLocaleString("en")}`);
  console.log(`Building the HNSW index (m=16, ef_construction=64 defaults) over ${N.toLocaleString("en")} vectors...`);
  const i0 = now();
  // The graph of 100 000 x 256-d vectors (~110 MB) must fit in maintenance_work_mem,
  // or the build falls back to a much slower on-disk insert path.
  await db.sql.exec(`SET maintenance_work_mem = '${process.env.BENCH_MAINTENANCE_WORK_MEM || "512MB"}'`);
  await db.sql.exec(CREATE_INDEX);
  await db.sql.exec(`RESET maintenance_work_mem`);
  const indexMs = now() - i0;
  console.log(`  index built in ${(indexMs / 1000).toFixed(1)} s`);
  await writeActiveModel(projectSql(db.sql, DEFAULT_PROJECT_ID), { model: LEXICAL_MODEL, dimensions: D, kind: "lexical" });
  const a0 = now();
  await db.sql.exec("ANALYZE");
  const analyzeMs = now() - a0;
  const [size] = await db.sql.query<{ idx: string; tbl: string }>(
    `SELECT pg_size_pretty(pg_relation_size('"${INDEX}"')) AS idx, pg_size_pretty(pg_total_relation_size('memory_embeddings')) AS tbl`,
  );
  return { loadMs, embedMs, indexMs, analyzeMs, rate: N / (loadMs / 1000), indexSize: size.idx, embeddingsSize: size.tbl, types, distinct: keys.size };
}

type Hit = { id: string; cosine: number };

async function hnswTop(db: Database, q: string, ef: number, limit: number): Promise<Hit[]> {
  return db.sql.transaction(async (tx) => {
    await tx.exec(`SET LOCAL hnsw.iterative_scan = relaxed_order; SET LOCAL hnsw.ef_search = ${ef}`);
    return (await tx.query<Hit>(VECTOR_SQL(limit), [LEXICAL_MODEL, USER, q])).map((h) => ({ id: h.id, cosine: Number(h.cosine) }));
  });
}

async function exactTop(db: Database, q: string): Promise<Hit[]> {
  return db.sql.transaction(async (tx) => {
    await tx.exec(`SET LOCAL enable_indexscan = off; SET LOCAL enable_bitmapscan = off`);
    return (await tx.query<Hit>(VECTOR_SQL(K), [LEXICAL_MODEL, USER, q])).map((h) => ({ id: h.id, cosine: Number(h.cosine) }));
  });
}

/** Tie-aware recall: a returned id counts if it is in the exact top-k or ties the k-th cosine. */
function recall(exact: Hit[], got: Hit[]): number {
  if (!exact.length) return 1;
  const kth = exact[exact.length - 1].cosine;
  const ids = new Set(exact.map((h) => h.id));
  const hits = got.filter((h) => ids.has(h.id) || h.cosine >= kth - 1e-9).length;
  return Math.min(exact.length, hits) / exact.length;
}

async function recallPhase(db: Database) {
  const nextQuery = makeQueryGenerator(4242);
  const queries = Array.from({ length: N_RECALL }, nextQuery).map((t) => ({ text: t, vec: toVectorLiteral(embedLexical(t)) }));
  const plan = await db.sql.transaction(async (tx) => {
    await tx.exec(`SET LOCAL hnsw.iterative_scan = relaxed_order; SET LOCAL hnsw.ef_search = ${SEARCH_EF}`);
    const rows = await tx.query<{ "QUERY PLAN": string }>(`EXPLAIN (ANALYZE, BUFFERS OFF) ${VECTOR_SQL(VECTOR_N)}`, [LEXICAL_MODEL, USER, queries[0].vec]);
    return rows.map((x) => x["QUERY PLAN"]).join("\n");
  });
  const exactPlan = await db.sql.transaction(async (tx) => {
    await tx.exec(`SET LOCAL enable_indexscan = off; SET LOCAL enable_bitmapscan = off`);
    const rows = await tx.query<{ "QUERY PLAN": string }>(`EXPLAIN ${VECTOR_SQL(K)}`, [LEXICAL_MODEL, USER, queries[0].vec]);
    return rows.map((x) => x["QUERY PLAN"]).join("\n");
  });
  if (/hnsw/i.test(exactPlan)) throw new Error(`the "exact" plan still uses the HNSW index:\n${exactPlan}`);
  console.log(`HNSW plan (search's vector query, ef_search=${SEARCH_EF}, LIMIT ${VECTOR_N}):\n${plan.replace(/^/gm, "    ")}`);
  console.log(`Exact plan:\n${exactPlan.replace(/^/gm, "    ")}`);

  const exact: Hit[][] = [];
  const exactMs: number[] = [];
  for (const q of queries) {
    const t = now();
    exact.push(await exactTop(db, q.vec));
    exactMs.push(now() - t);
  }
  const worst: { q: string; r: number; exact10: number; got10: number }[] = [];
  const rows: { ef: number; recallAt10: number; recallIn50: number; hnswMs: Stats; minRecall: number }[] = [];
  for (const ef of [...new Set([40, 100, 200, 400, 1000, SEARCH_EF])].sort((a, b) => a - b)) {
    let r10 = 0, r50 = 0, minR = 1;
    const perQuery: { q: string; r: number; exact10: number; got10: number }[] = [];
    const t: number[] = [];
    for (let i = 0; i < queries.length; i++) {
      const a = now();
      const top50 = await hnswTop(db, queries[i].vec, ef, VECTOR_N);
      t.push(now() - a);
      const top10 = [...top50].sort((x, y) => y.cosine - x.cosine).slice(0, K);
      const rr = recall(exact[i], top10);
      perQuery.push({ q: queries[i].text, r: rr, exact10: exact[i][exact[i].length - 1]?.cosine ?? 0, got10: top10[top10.length - 1]?.cosine ?? 0 });
      r10 += rr;
      minR = Math.min(minR, rr);
      r50 += recall(exact[i], top50);
    }
    if (ef === SEARCH_EF) worst.push(...perQuery.sort((a, b) => a.r - b.r).slice(0, 5));
    rows.push({ ef, recallAt10: r10 / queries.length, recallIn50: r50 / queries.length, hnswMs: stats(t), minRecall: minR });
    console.log(`  ef_search=${ef}: recall@10 ${(r10 / queries.length).toFixed(3)} (min ${minR.toFixed(2)}), exact top-10 within the ${VECTOR_N} candidates ${(r50 / queries.length).toFixed(3)}, query p50 ${ms(stats(t).p50)} ms`);
  }
  console.log(`  worst queries at ef_search=${SEARCH_EF}:`);
  for (const w of worst) console.log(`    recall ${w.r.toFixed(2)}  10th cosine exact ${w.exact10.toFixed(3)} vs HNSW ${w.got10.toFixed(3)}  "${w.q}"`);
  return { rows, exactMs: stats(exactMs), plan, exactPlan, worst };
}

async function httpPhase(dataDir: string, onCleanup: (fn: () => unknown) => void) {
  const server = await startBuiltServer(dataDir, 300_000);
  onCleanup(() => server.stop());
  const base = `${server.base}/api/v1/users/${USER}/memories`;
  const nextQuery = makeQueryGenerator(99);
  const queries = Array.from({ length: N_QUERIES + 20 }, nextQuery);
  let qi = 0;
  const serverLatency: number[] = [];
  let model = "";
  let emptyResults = 0;
  const search = async () => {
    const res = await fetch(`${base}/search`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query: queries[qi++ % queries.length], k: K, dry_run: true }),
    });
    const body = (await res.json()) as { embedding_model: string; latency_ms: number; data: unknown[] };
    if (res.status !== 200) throw new Error(`search answered ${res.status}: ${JSON.stringify(body)}`);
    model = body.embedding_model;
    serverLatency.push(body.latency_ms);
    if (!body.data.length) emptyResults++;
  };
  const searchRun = await measure(search, { warmup: 20, n: N_QUERIES });
  serverLatency.splice(0, 20);

  const list = (qs: string) => async () => {
    const res = await fetch(`${base}?${qs}`);
    const body = (await res.json()) as { data: unknown[] };
    if (res.status !== 200 || body.data.length !== 50) throw new Error(`list ${qs} answered ${res.status} with ${body.data?.length} rows`);
  };
  const variants = [
    { label: "list ?limit=50 (default: active, updated_at desc)", qs: "limit=50" },
    { label: "list ?memory_type=fact&sort=importance_score&order=desc&limit=50", qs: "memory_type=fact&sort=importance_score&order=desc&limit=50" },
    { label: "list ?memory_type=preference&min_importance=0.5&sort=last_accessed_at&limit=50", qs: "memory_type=preference&min_importance=0.5&sort=last_accessed_at&limit=50" },
    { label: "list ?q=coffee&limit=50 (text filter)", qs: "q=coffee&limit=50" },
  ];
  const lists: { label: string; qs: string; stats: Stats }[] = [];
  for (const v of variants) {
    const run = await measure(list(v.qs), { warmup: 5, n: 50 });
    lists.push({ ...v, stats: stats(run.samples) });
  }
  const log = server.log();
  await server.stop();
  return { search: stats(searchRun.samples), searchServer: stats(serverLatency), model, emptyResults, lists, serverLog: log };
}

runMain("bench:memories", async (onCleanup) => {
  const machine = printMachine();
  assertBuilt(); // before a 5-minute load, not after it
  const dataDir = makeTempDir("memscope-bench-memories-");
  // BENCH_KEEP_DATA=1 keeps the loaded folder for diagnostics (bench/diag/*.ts).
  if (process.env.BENCH_KEEP_DATA === "1") console.log(`Keeping the data folder (BENCH_KEEP_DATA=1)`);
  else onCleanup(() => removeDir(dataDir));
  console.log(`Data folder: ${dataDir}`);
  console.log(`Loading ${N.toLocaleString("en")} memories for ${USER} in batches of ${BATCH} (lexical HNSW index dropped during the load)...`);
  let db: Database | null = await openDatabase({ kind: "pglite", dataDir });
  onCleanup(() => db?.close());
  const loaded = await load(db);
  console.log(`Loaded in ${(loaded.loadMs / 1000).toFixed(1)} s = ${Math.round(loaded.rate).toLocaleString("en")} memories/s (embedding in JS: ${(loaded.embedMs / 1000).toFixed(1)} s); index ${(loaded.indexMs / 1000).toFixed(1)} s (${loaded.indexSize}); ANALYZE ${(loaded.analyzeMs / 1000).toFixed(1)} s`);

  console.log(`\nRecall@10 over ${N_RECALL} queries: HNSW path vs exact sequential scan`);
  const rec = await recallPhase(db);
  await db.close();
  db = null;

  console.log(`\nHTTP against next start (dist ${process.env.MEMSCOPE_NEXT_DIST_DIR || ".next"})`);
  const http = await httpPhase(dataDir, onCleanup);
  if (http.model !== LEXICAL_MODEL) throw new Error(`search used ${http.model}, expected ${LEXICAL_MODEL}`);

  const atSearchEf = rec.rows.find((r) => r.ef === SEARCH_EF)!;
  const table: [string, string, string, string, string][] = [
    ["retrieval POST /search (k=10, dry_run), client", String(http.search.n), ms(http.search.p50), ms(http.search.p95), "p95 < 50 ms"],
    ["  its latency_ms (server, in searchMemories)", String(http.searchServer.n), ms(http.searchServer.p50), ms(http.searchServer.p95), ""],
    ...http.lists.map((l) => [l.label, String(l.stats.n), ms(l.stats.p50), ms(l.stats.p95), l.qs === "limit=50" ? "< 300 ms" : ""] as [string, string, string, string, string]),
    [`in-process HNSW vector query (ef ${SEARCH_EF}, LIMIT ${VECTOR_N})`, String(atSearchEf.hnswMs.n), ms(atSearchEf.hnswMs.p50), ms(atSearchEf.hnswMs.p95), ""],
    ["in-process exact scan (top-10)", String(rec.exactMs.n), ms(rec.exactMs.p50), ms(rec.exactMs.p95), ""],
  ];
  console.log(`\n| measurement | N | p50 ms | p95 ms | target |\n| --- | ---: | ---: | ---: | --- |`);
  for (const row of table) console.log(`| ${row.join(" | ")} |`);
  console.log(`\n| hnsw.ef_search | recall@10 | min | exact top-10 within 50 candidates | HNSW query p50 ms |\n| ---: | ---: | ---: | ---: | ---: |`);
  for (const r of rec.rows) console.log(`| ${r.ef}${r.ef === SEARCH_EF ? " (search's value)" : ""} | ${r.recallAt10.toFixed(3)} | ${r.minRecall.toFixed(2)} | ${r.recallIn50.toFixed(3)} | ${ms(r.hnswMs.p50)} |`);
  if (http.emptyResults) console.log(`(${http.emptyResults} searches returned no results)`);

  const out = { machine, n: N, batch: BATCH, load: loaded, recall: rec, http: { ...http, serverLog: undefined }, at: new Date().toISOString() };
  const resultsDir = path.join(ROOT, "bench", "results");
  fs.mkdirSync(resultsDir, { recursive: true });
  fs.writeFileSync(path.join(resultsDir, "memories.json"), JSON.stringify(out, null, 2) + "\n");
  console.log(`Results written to bench/results/memories.json`);
});
