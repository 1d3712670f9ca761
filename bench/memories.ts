// npm run bench:memories — semantic memories: per-user retrieval, recall and latency.
//
// Data sets (BENCH_SCALE, bench/lib/memory-dataset.ts):
//   100k (default): 100 000 memories of one user.
//   1m: 1 000 000 memories over 10 000 users (three of 100 000, tiers of 30 000 to 1 000,
//       9 854 with tens), rows of all users interleaved.
// 1. Bulk load through SQL in batches (lexical vectors computed here, in JS), with the
//    lexical HNSW index dropped during the load and rebuilt after (timed); then the largest
//    users' own HNSW indexes (lib/embeddings/user-vector-indexes.ts, timed).
// 2. In-process, through the search's own vectorCandidates (lib/memories/search-memories.ts):
//    recall@10 of each path (exact per-user scan, HNSW, HNSW with the thin-candidates
//    fallback) against an exact top-10, per user tier, and each path's latency by user size
//    (where the exact-scan threshold sits); the share and worst recall of thin-answer rules;
//    the largest user's recall by hnsw.ef_search.
// 3. Against `next start` on the same database: retrieval p50/p95 over HTTP (k=10, dry_run)
//    for the largest user and (1m) for small users, and the list page's first response.
//
// Database: BENCH_DATABASE_URL (used as is; a database already holding the data set is
// reused, not reloaded), else MEMSCOPE_TEST_POSTGRES_URL (a fresh database on that server,
// dropped after; `source .ci/postgres.sh` starts one), else a temporary PGlite folder.
// Env: BENCH_SCALE (100k|1m), BENCH_MEMORIES (100k set's size, default 100000), BENCH_BATCH
// (2000), BENCH_QUERIES (200), BENCH_RECALL_QUERIES (100), BENCH_PHASES (load,recall,http),
// BENCH_RECALL_TIERS (1m: the tiers measured besides the largest user, e.g. u30k,u10k),
// BENCH_HTTP_TIERS (the tiers searched over HTTP, default single,big,small,u10k),
// MEMSCOPE_USER_VECTOR_INDEX_MIN (users given an HNSW index of their own, built after the
// load by the product's ensureUserVectorIndexes and timed; default 20 000),
// BENCH_KEEP_DATA=1 (keep the folder / database). MEMSCOPE_NEXT_DIST_DIR selects the build
// `next start` serves.

import fs from "node:fs";
import path from "node:path";
import { DEFAULT_PROJECT_ID, projectSql } from "../lib/db/project-sql";
import { openDatabase, type Database } from "../lib/db/open-database";
import { toVectorLiteral } from "../lib/embeddings/embedding-provider";
import { embedLexical, LEXICAL_MODEL } from "../lib/embeddings/lexical-embedder";
import { makeTempDir, measure, ms, now, printMachine, removeDir, ROOT, runMain, stats, type Stats } from "./lib/common";
import { freshPostgres } from "./lib/serve-process";
import { assertBuilt, startBuiltServer } from "./lib/start-server-dist";
import { makeQueryGenerator, makeRng } from "./lib/memory-text";
import { EXACT_SCAN_MAX_MEMORIES, THIN_KTH_COSINE, exactCandidates, hnswCandidates, hnswQuery, TEXT_BEATS_MIN, textAboveKth, textCandidates, vectorCandidates, type VectorPath, type VectorQuery } from "../lib/memories/search-memories";
import { ensureUserVectorIndexes, userVectorIndexMin, userVectorIndexName, userVectorIndexReady } from "../lib/embeddings/user-vector-indexes";
import { D, indexSizes, loadPlan, makePlan, planLoaded, type LoadResult, type Plan, type PlanUser, type Scale } from "./lib/memory-dataset";

const SCALE = (process.env.BENCH_SCALE || "100k") as Scale;
if (SCALE !== "100k" && SCALE !== "1m") throw new Error(`BENCH_SCALE must be 100k or 1m (got ${SCALE})`);
const N100K = Number(process.env.BENCH_MEMORIES || 100_000);
const BATCH = Number(process.env.BENCH_BATCH || 2000);
const N_QUERIES = Number(process.env.BENCH_QUERIES || 200);
const N_RECALL = Number(process.env.BENCH_RECALL_QUERIES || 100);
const PHASES = new Set((process.env.BENCH_PHASES || "load,recall,http").split(","));
const K = 10;

type Hit = { id: string; cosine: number };
const VECTOR_N = Math.max(50, K * 5); // as the search asks (max(50, k*5))
const sqlOf = (db: Database) => projectSql(db.sql, DEFAULT_PROJECT_ID);
// Users with an HNSW index of their own (filled in recallPhase): their walk is the search's,
// on their own index.
const ownIndex = new Set<string>();
const vq = (user: string, vector: string, efSearch?: number): VectorQuery => ({
  model: LEXICAL_MODEL, dimensions: D, userId: user, vector, status: "active", types: null, limit: VECTOR_N, k: K, efSearch, ownIndex: ownIndex.has(user),
});
const top = (hits: Hit[]) => [...hits].sort((a, b) => b.cosine - a.cosine).slice(0, K);

/** Tie-aware recall: a returned id counts if it is in the exact top-k or ties the k-th cosine. */
function recall(exact: Hit[], got: Hit[]): number {
  if (!exact.length) return 1;
  const kth = exact[exact.length - 1].cosine;
  const ids = new Set(exact.map((h) => h.id));
  const hits = got.filter((h) => ids.has(h.id) || h.cosine >= kth - 1e-9).length;
  return Math.min(exact.length, hits) / exact.length;
}

type QueryRow = { user: string; q: string; truth: Hit[]; exactMs: number; hnswMs: number; autoMs: number; hnswRecall: number; autoRecall: number; mergedRecall: number; path: VectorPath; hnswN: number; hnswKth: number; exactKth: number; textAbove: number };
type Group = { label: string; tier: string; rows: number; users: number; queries: QueryRow[] };

/** The groups of users measured: the largest user alone, then each tier (users round-robin). */
function groups(plan: Plan): { label: string; tier: string; users: PlanUser[] }[] {
  const byTier = new Map<string, PlanUser[]>();
  for (const u of plan.users) byTier.set(u.tier, [...(byTier.get(u.tier) ?? []), u]);
  const out = [{ label: `largest user (${plan.users[0].user})`, tier: plan.users[0].tier, users: [plan.users[0]] }];
  if (plan.scale === "1m") {
    const r = makeRng(5150);
    for (const [tier, us] of byTier) {
      if (tier === "big") continue;
      // Up to 100 users of the tier, drawn at random (small: 100 of 9 854).
      const pick = [...us].sort(() => r() - 0.5).slice(0, 100);
      out.push({ label: `${tier} (${us.length} users, ${tier === "small" ? "10-55" : us[0].n.toLocaleString("en")} memories each)`, tier, users: pick });
    }
  }
  return out;
}

async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const t = now();
  const v = await fn();
  return [v, now() - t];
}

async function recallPhase(db: Database, plan: Plan) {
  const sql = sqlOf(db);
  const nextQuery = makeQueryGenerator(4242);
  const queries = Array.from({ length: N_RECALL }, nextQuery).map((t) => ({ text: t, vec: toVectorLiteral(embedLexical(t)) }));
  // The plans of the two paths' queries (their text as in lib/memories/search-memories.ts).
  const explain = async (user: string, exact: boolean) =>
    sql.transaction(async (tx) => {
      if (!exact) await tx.exec(`SET LOCAL hnsw.iterative_scan = relaxed_order; SET LOCAL hnsw.ef_search = ${Math.max(400, VECTOR_N)}`);
      const d = D;
      const text = exact
        ? `EXPLAIN SELECT e.memory_id AS id, 1 - (e.embedding::vector(${d}) <=> $3::vector(${d})) AS cosine
             FROM memories m JOIN memory_embeddings e ON e.memory_id = m.id AND e.model = $1 AND e.project_id = $4
            WHERE m.project_id = $4 AND m.user_id = $2 AND m.status = 'active' ORDER BY cosine DESC, e.memory_id LIMIT ${VECTOR_N}`
        : `EXPLAIN SELECT e.memory_id AS id FROM memory_embeddings e JOIN memories m ON m.project_id = e.project_id AND m.id = e.memory_id
            WHERE e.model = $1 AND e.user_id = $2 AND e.project_id = $4 AND m.status = 'active'
            ORDER BY e.embedding::vector(${d}) <=> $3::vector(${d}) LIMIT ${VECTOR_N}`;
      const rows = await tx.query<{ "QUERY PLAN": string }>(text, [LEXICAL_MODEL, user, queries[0].vec, DEFAULT_PROJECT_ID]);
      return rows.map((x) => x["QUERY PLAN"]).join("\n");
    });
  for (const u of plan.users) if (u.n >= EXACT_SCAN_MAX_MEMORIES && (await userVectorIndexReady(db.sql, LEXICAL_MODEL, DEFAULT_PROJECT_ID, u.user))) ownIndex.add(u.user);
  console.log(`Users with an HNSW index of their own: ${ownIndex.size} (${[...ownIndex].join(", ")})`);
  let ownPlan = "";
  if (ownIndex.has(plan.users[0].user)) {
    // The search's own query text (hnswCandidates with ownIndex), through EXPLAIN.
    ownPlan = await sql.transaction(async (tx) => {
      await tx.exec(`SET LOCAL hnsw.iterative_scan = relaxed_order; SET LOCAL hnsw.ef_search = 400`);
      const { text, params } = hnswQuery(DEFAULT_PROJECT_ID, vq(plan.users[0].user, queries[0].vec));
      const rows = await tx.query<{ "QUERY PLAN": string }>(`EXPLAIN ${text}`, params);
      return rows.map((x) => x["QUERY PLAN"]).join("\n");
    });
    console.log(`HNSW path plan, largest user on their own index:\n${ownPlan.replace(/^/gm, "    ")}`);
    if (!ownPlan.includes(userVectorIndexName(LEXICAL_MODEL, DEFAULT_PROJECT_ID, plan.users[0].user))) throw new Error("the largest user's walk does not use their own index");
  }
  const only = process.env.BENCH_RECALL_TIERS?.split(",");
  const gs = groups(plan).filter((g, i) => i === 0 || !only || only.includes(g.tier));
  const small = gs[gs.length - 1].users[0].user;
  const exactPlanLarge = await explain(plan.users[0].user, true);
  const exactPlanSmall = await explain(small, true);
  const hnswPlan = await explain(plan.users[0].user, false);
  if (/hnsw/i.test(exactPlanLarge + exactPlanSmall)) throw new Error(`the exact path's plan uses the HNSW index:\n${exactPlanLarge}`);
  console.log(`Exact path plan, largest user:\n${exactPlanLarge.replace(/^/gm, "    ")}`);
  console.log(`Exact path plan, ${small}:\n${exactPlanSmall.replace(/^/gm, "    ")}`);
  console.log(`HNSW path plan:\n${hnswPlan.replace(/^/gm, "    ")}`);

  // The exact path is the ground truth; check it once against a plain sequential scan
  // of the user's vectors (no index at all).
  for (const qq of queries.slice(0, 3)) {
    const seq = await sql.transaction(async (tx) => {
      await tx.exec(`SET LOCAL enable_indexscan = off; SET LOCAL enable_bitmapscan = off`);
      return tx.query<Hit>(
        `SELECT e.memory_id AS id, 1 - (e.embedding::vector(${D}) <=> $3::vector(${D})) AS cosine FROM memory_embeddings e
          WHERE e.model = $1 AND e.user_id = $2 ORDER BY e.embedding::vector(${D}) <=> $3::vector(${D}) LIMIT ${K}`,
        [LEXICAL_MODEL, plan.users[0].user, qq.vec],
      );
    });
    const ex = await sql.transaction((tx) => exactCandidates(tx, { ...vq(plan.users[0].user, qq.vec), limit: K }));
    const rr = recall(seq.map((h) => ({ id: h.id, cosine: Number(h.cosine) })), ex);
    if (rr < 1) throw new Error(`the exact path disagrees with a sequential scan (recall ${rr}) on "${qq.text}"`);
  }

  const out: Group[] = [];
  for (const g of gs) {
    const rows: QueryRow[] = [];
    for (let i = 0; i < queries.length; i++) {
      const user = g.users[i % g.users.length].user;
      const { text, vec } = queries[i];
      const [exact, exactMs] = await timed(() => sql.transaction((tx) => exactCandidates(tx, vq(user, vec))));
      const [hnsw, hnswMs] = await timed(() => sql.transaction((tx) => hnswCandidates(tx, vq(user, vec))));
      // As the search runs it: text candidates first (their cosines are a thinness signal).
      const [[auto, textHits], autoMs] = await timed(() =>
        sql.transaction(async (tx) => {
          const th = await textCandidates(tx, vq(user, vec), text);
          return [await vectorCandidates(tx, vq(user, vec), { textHits: th }), th] as const;
        }),
      );
      const truth = exact.slice(0, K);
      const hTop = top(hnsw);
      rows.push({
        user, q: text, truth: truth.map((h) => ({ id: h.id, cosine: h.cosine })), exactMs, hnswMs, autoMs,
        hnswRecall: recall(truth, hTop), autoRecall: recall(truth, top(auto.hits)), path: auto.path,
        // As the search ranks (cosine only): its vector candidates and its full-text ones together.
        mergedRecall: recall(truth, top([...auto.hits, ...textHits.filter((t) => t.cosine !== null && !auto.hits.some((h) => h.id === t.id)).map((t) => ({ id: t.id, cosine: t.cosine! }))])),
        hnswN: hnsw.length, hnswKth: hTop[K - 1]?.cosine ?? NaN, exactKth: truth[K - 1]?.cosine ?? NaN,
        textAbove: textAboveKth(hnsw, K, textHits),
      });
    }
    const grp = { label: g.label, tier: g.tier, rows: g.users[0].n, users: g.users.length, queries: rows };
    out.push(grp);
    const sum = summarize(grp);
    console.log(`  ${g.label}: exact p50 ${ms(sum.exact.p50)} ms / HNSW p50 ${ms(sum.hnsw.p50)} ms; recall@10 HNSW alone ${sum.hnswRecall.toFixed(3)} (min ${sum.hnswMin.toFixed(2)}), search's path ${sum.autoRecall.toFixed(3)} (min ${sum.autoMin.toFixed(2)}), with its text candidates ${sum.mergedRecall.toFixed(3)} (min ${sum.mergedMin.toFixed(2)}); paths ${JSON.stringify(sum.paths)}; search's path p50 / p95 ${ms(sum.auto.p50)} / ${ms(sum.auto.p95)} ms`);
  }

  // ef_search sweep of the HNSW path alone, for the largest user.
  const sweep: { ef: number; recallAt10: number; min: number; p50: number }[] = [];
  for (const ef of [100, 200, 400, 1000]) {
    let sumR = 0, minR = 1;
    const t: number[] = [];
    for (let i = 0; i < queries.length; i++) {
      const [h, dt] = await timed(() => sql.transaction((tx) => hnswCandidates(tx, vq(plan.users[0].user, queries[i].vec, ef))));
      t.push(dt);
      const rr = recall(out[0].queries[i].truth, top(h));
      sumR += rr;
      minR = Math.min(minR, rr);
    }
    sweep.push({ ef, recallAt10: sumR / queries.length, min: minR, p50: stats(t).p50 });
  }
  return { groups: out, sweep, exactPlanLarge, exactPlanSmall, hnswPlan, ownPlan, ownIndexUsers: [...ownIndex] };
}

function summarize(g: Group) {
  const q = g.queries;
  const mean = (f: (r: QueryRow) => number) => q.reduce((a, r) => a + f(r), 0) / q.length;
  const paths: Record<string, number> = {};
  for (const r of q) paths[r.path] = (paths[r.path] ?? 0) + 1;
  return {
    exact: stats(q.map((r) => r.exactMs)), hnsw: stats(q.map((r) => r.hnswMs)), auto: stats(q.map((r) => r.autoMs)),
    hnswRecall: mean((r) => r.hnswRecall), hnswMin: Math.min(...q.map((r) => r.hnswRecall)),
    autoRecall: mean((r) => r.autoRecall), autoMin: Math.min(...q.map((r) => r.autoRecall)), paths,
    mergedRecall: mean((r) => r.mergedRecall), mergedMin: Math.min(...q.map((r) => r.mergedRecall)),
    hnswThin: q.filter((r) => r.hnswN < K).length,
  };
}

function printRecall(rec: Awaited<ReturnType<typeof recallPhase>>) {
  console.log(`\n| users (rows each) | queries | exact scan p50 / p95 ms | HNSW p50 / p95 ms | HNSW alone recall@10 (min) | HNSW < 10 hits | search's path recall@10 (min) | with its text candidates (min) | paths taken | search's path p50 / p95 ms |`);
  console.log(`| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: |`);
  for (const g of rec.groups) {
    const s = summarize(g);
    console.log(`| ${g.label} | ${g.queries.length} | ${ms(s.exact.p50)} / ${ms(s.exact.p95)} | ${ms(s.hnsw.p50)} / ${ms(s.hnsw.p95)} | ${s.hnswRecall.toFixed(3)} (${s.hnswMin.toFixed(2)}) | ${s.hnswThin} | ${s.autoRecall.toFixed(3)} (${s.autoMin.toFixed(2)}) | ${s.mergedRecall.toFixed(3)} (${s.mergedMin.toFixed(2)}) | ${Object.entries(s.paths).map(([k, v]) => `${k} ${v}`).join(", ")} | ${ms(s.auto.p50)} / ${ms(s.auto.p95)} |`);
  }
  // Where a k-th-cosine floor would send the HNSW answers of the large users (tiers above
  // the exact threshold) to the exact scan, and what recall that leaves.
  const hnswGroups = rec.groups.filter((g) => g.rows > EXACT_SCAN_MAX_MEMORIES);
  const all = hnswGroups.flatMap((g) => g.queries);
  if (all.length) {
    console.log(`\nThin-answer rules (HNSW-path users, ${all.length} queries): share sent to the exact scan, and the recall left`);
    console.log(`| k-th cosine floor | text candidates above the k-th | fallback share | worst recall@10 | mean recall@10 |\n| ---: | ---: | ---: | ---: | ---: |`);
    for (const f of [0, 0.3, 0.35, 0.4, 0.45]) {
      for (const m of [Infinity, 1, 2, 3]) {
        const fb = all.map((r) => r.hnswN < K || r.hnswKth < f || r.textAbove >= m);
        const rs = all.map((r, i) => (fb[i] ? 1 : r.hnswRecall));
        const shipped = f === THIN_KTH_COSINE && m === TEXT_BEATS_MIN ? " (shipped)" : "";
        console.log(`| ${f} | ${m === Infinity ? "off" : `>= ${m}`}${shipped} | ${(fb.filter(Boolean).length / all.length).toFixed(2)} | ${Math.min(...rs).toFixed(2)} | ${(rs.reduce((a, b) => a + b, 0) / rs.length).toFixed(3)} |`);
      }
    }
    console.log(`  worst HNSW-alone queries:`);
    for (const r of [...all].sort((a, b) => a.hnswRecall - b.hnswRecall).slice(0, 6)) {
      console.log(`    ${r.user}: recall ${r.hnswRecall.toFixed(2)}, 10th cosine exact ${r.exactKth.toFixed(3)} vs HNSW ${r.hnswKth.toFixed(3)} (${r.hnswN} hits, ${r.textAbove} text candidates above) -> ${r.path}, search's recall ${r.autoRecall.toFixed(2)}  "${r.q}"`);
    }
  }
  console.log(`\n| hnsw.ef_search (largest user, HNSW alone) | recall@10 | min | p50 ms |\n| ---: | ---: | ---: | ---: |`);
  for (const r of rec.sweep) console.log(`| ${r.ef} | ${r.recallAt10.toFixed(3)} | ${r.min.toFixed(2)} | ${ms(r.p50)} |`);
}

type SearchBody = { latency_ms: number; data: unknown[]; embedding_model: string; vector_path: string };

async function httpPhase(target: Target, plan: Plan, onCleanup: (fn: () => unknown) => void) {
  const server = await startBuiltServer("", 300_000, "/api/v1/ready", target.serverEnv);
  onCleanup(() => server.stop());
  const nextQuery = makeQueryGenerator(99);
  const queries = Array.from({ length: N_QUERIES + 20 }, nextQuery);
  const httpTiers = (process.env.BENCH_HTTP_TIERS || "single,big,small,u10k").split(",");
  const searchGroups = groups(plan).filter((g) => httpTiers.includes(g.tier));
  const searches: { label: string; client: Stats; server: Stats; paths: Record<string, number>; empty: number }[] = [];
  for (const g of searchGroups) {
    let qi = 0;
    const serverLatency: number[] = [];
    const paths: Record<string, number> = {};
    let empty = 0;
    const search = async () => {
      const user = g.users[qi % g.users.length].user;
      const res = await fetch(`${server.base}/api/v1/users/${user}/memories/search`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ query: queries[qi++ % queries.length], k: K, dry_run: true }),
      });
      const body = (await res.json()) as SearchBody;
      if (res.status !== 200) throw new Error(`search answered ${res.status}: ${JSON.stringify(body)}`);
      if (body.embedding_model !== LEXICAL_MODEL) throw new Error(`search used ${body.embedding_model}, expected ${LEXICAL_MODEL}`);
      serverLatency.push(body.latency_ms);
      paths[body.vector_path] = (paths[body.vector_path] ?? 0) + 1;
      if (!body.data.length) empty++;
    };
    const run = await measure(search, { warmup: 20, n: N_QUERIES });
    serverLatency.splice(0, 20);
    searches.push({ label: g.label, client: stats(run.samples), server: stats(serverLatency), paths, empty });
    console.log(`  ${g.label}: p50 ${ms(stats(run.samples).p50)} ms, p95 ${ms(stats(run.samples).p95)} ms; paths ${JSON.stringify(paths)}`);
  }

  const base = `${server.base}/api/v1/users/${plan.users[0].user}/memories`;
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
  await server.stop();
  return { searches, lists };
}

function printHttp(http: Awaited<ReturnType<typeof httpPhase>>) {
  console.log(`\n| measurement (largest user's list) | N | p50 ms | p95 ms | target |\n| --- | ---: | ---: | ---: | --- |`);
  for (const s of http.searches) {
    console.log(`| POST /search (k=10, dry_run), ${s.label}, client | ${s.client.n} | ${ms(s.client.p50)} | ${ms(s.client.p95)} | p95 < 50 ms |`);
    console.log(`|   its latency_ms (server); paths ${Object.entries(s.paths).map(([k, v]) => `${k} ${v}`).join(", ")}${s.empty ? `; ${s.empty} empty` : ""} | ${s.server.n} | ${ms(s.server.p50)} | ${ms(s.server.p95)} | |`);
  }
  for (const l of http.lists) console.log(`| ${l.label} | ${l.stats.n} | ${ms(l.stats.p50)} | ${ms(l.stats.p95)} | ${l.qs === "limit=50" ? "< 300 ms" : ""} |`);
}

type Target = { label: string; postgres: boolean; serverEnv: Record<string, string> };


runMain("bench:memories", async (onCleanup) => {
  const machine = printMachine();
  if (PHASES.has("http")) assertBuilt(); // before a long load, not after it
  const plan = makePlan(SCALE, N100K);
  const keep = process.env.BENCH_KEEP_DATA === "1";
  let target: Target;
  let db: Database | null;
  const explicit = process.env.BENCH_DATABASE_URL?.trim();
  const server = process.env.MEMSCOPE_TEST_POSTGRES_URL?.trim();
  if (explicit || server) {
    let url = explicit;
    if (!url) {
      const fresh = await freshPostgres(server!);
      url = fresh.url;
      if (keep) console.log(`Keeping the database (BENCH_KEEP_DATA=1): ${url}`);
      else onCleanup(() => fresh.drop());
    }
    db = await openDatabase({ kind: "postgres", url });
    const [v] = await db.sql.query<{ v: string; pgv: string }>(
      `SELECT current_setting('server_version') AS v, (SELECT extversion FROM pg_extension WHERE extname = 'vector') AS pgv`,
    );
    target = { label: `PostgreSQL ${v.v}, pgvector ${v.pgv}`, postgres: true, serverEnv: { DATABASE_URL: url } };
  } else {
    const dataDir = makeTempDir("memscope-bench-memories-");
    // BENCH_KEEP_DATA=1 keeps the loaded folder for diagnostics (bench/diag/*.ts).
    if (keep) console.log(`Keeping the data folder (BENCH_KEEP_DATA=1)`);
    else onCleanup(() => removeDir(dataDir));
    console.log(`Data folder: ${dataDir}`);
    db = await openDatabase({ kind: "pglite", dataDir });
    target = { label: "PGlite (embedded)", postgres: false, serverEnv: { MEMSCOPE_DATA_DIR: dataDir, DATABASE_URL: "" } };
  }
  onCleanup(() => db?.close());
  console.log(`Database: ${target.label}; data set ${SCALE}: ${plan.total.toLocaleString("en")} memories over ${plan.users.length.toLocaleString("en")} users`);

  let loaded: LoadResult;
  if (target.postgres && (await planLoaded(db, plan))) {
    console.log(`The database already holds this data set: load skipped`);
    loaded = { loadMs: 0, embedMs: 0, indexMs: 0, analyzeMs: 0, rate: 0, ...(await indexSizes(db)), types: {}, distinct: 0, reused: true };
  } else {
    if (!PHASES.has("load")) throw new Error("the database does not hold the data set and BENCH_PHASES has no load");
    console.log(`Loading in batches of ${BATCH} (lexical HNSW index dropped during the load)...`);
    loaded = await loadPlan(db, plan, BATCH, { postgres: target.postgres });
    console.log(`Loaded in ${(loaded.loadMs / 1000).toFixed(1)} s = ${Math.round(loaded.rate).toLocaleString("en")} memories/s (embedding in JS: ${(loaded.embedMs / 1000).toFixed(1)} s); index ${(loaded.indexMs / 1000).toFixed(1)} s (${loaded.indexSize}); ANALYZE ${(loaded.analyzeMs / 1000).toFixed(1)} s`);
  }

  // The largest users' own HNSW indexes, built by the product's function (as the server does
  // at start-up); a reused database that has them already builds nothing.
  console.log(`Per-user HNSW indexes (users of at least ${userVectorIndexMin().toLocaleString("en")} memories; MEMSCOPE_USER_VECTOR_INDEX_MIN)...`);
  const u0 = now();
  // CREATE INDEX CONCURRENTLY runs on any pooled connection: maintenance_work_mem is the
  // server's or the database's setting (a graph larger than it builds much more slowly).
  const [mwm] = await db.sql.query<{ m: string }>(`SELECT current_setting('maintenance_work_mem') AS m`);
  console.log(`  maintenance_work_mem ${mwm.m}`);
  const userIndexes = await ensureUserVectorIndexes(db);
  const userIndexMs = now() - u0;
  for (const b of userIndexes) console.log(`  ${b.userId}: ${b.rows.toLocaleString("en")} vectors in ${(b.ms / 1000).toFixed(1)} s`);
  console.log(`  built ${userIndexes.length} in ${(userIndexMs / 1000).toFixed(1)} s`);

  let rec: Awaited<ReturnType<typeof recallPhase>> | null = null;
  if (PHASES.has("recall")) {
    console.log(`\nRecall@10 and latency of each vector path, in process`);
    rec = await recallPhase(db, plan);
  }
  await db.close();
  db = null;

  let http: Awaited<ReturnType<typeof httpPhase>> | null = null;
  if (PHASES.has("http")) {
    console.log(`\nHTTP against the server as npm start runs it (dist ${process.env.MEMSCOPE_NEXT_DIST_DIR || ".next"}, ${target.label})`);
    http = await httpPhase(target, plan, onCleanup);
    printHttp(http);
  }
  if (rec) printRecall(rec);

  const out = { machine, loadavg: fs.readFileSync("/proc/loadavg", "utf8").trim(), scale: SCALE, database: target.label, n: plan.total, users: plan.users.length, batch: BATCH, load: loaded, userIndexes: { built: userIndexes, ms: userIndexMs }, recall: rec, http, at: new Date().toISOString() };
  const resultsDir = path.join(ROOT, "bench", "results");
  fs.mkdirSync(resultsDir, { recursive: true });
  const file = `memories-${SCALE}${target.postgres ? "-postgres" : ""}.json`;
  fs.writeFileSync(path.join(resultsDir, file), JSON.stringify(out, null, 2) + "\n");
  console.log(`Results written to bench/results/${file}`);
});
