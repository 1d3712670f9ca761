import "server-only";
import { randomUUID } from "node:crypto";
import type { ProjectSql } from "../db/project-sql";
import { activeProvider } from "../embeddings/active-model";
import { toVectorLiteral, type EmbeddingProvider } from "../embeddings/embedding-provider";
import { lexicalTokens } from "../embeddings/lexical-embedder";
import { loadMemories } from "./load-memory";
import { scoreMemory } from "./score-memory";
import { DEFAULT_WEIGHTS, type Breakdown, type Memory, type SearchInput, type SearchResult, type Weights } from "./schemas";
import { requireConversationOfUser } from "../conversations/require-conversation-of-user";
import { getDb } from "../db/get-db";
import { exactScanMaxMemories } from "./exact-scan-max";
import { scheduleUserVectorIndex, sqlLiteral, userVectorIndexExpression, userVectorIndexMin, userVectorIndexReady } from "../embeddings/user-vector-indexes";

const TEXT_CANDIDATES = 50;
// Full-text matches ranked per query at most: a common word can match half the store,
// and ranking every match would turn the text half of a search into a scan. The pool is
// the first matches found, so text candidates complement the vector ones; they do not
// replace a ranking over everything.
const TEXT_RANK_POOL = 100;
// The vector search's breadth. On 100 000 lexical memories recall@10 against an exact
// scan depends on the built graph: 0.87-0.97 at ef_search 100, 0.93-0.98 at 200,
// 0.955-0.995 at 400 for ~1-2 ms more than 200 (bench:memories, four builds).
const HNSW_EF_SEARCH = 400;
// The second, wider walk when the first answer looks thin: on the 100 000 set recall@10
// at ef_search 1000 was 0.999 (worst query 0.90) for a few ms more than 400, so most thin
// answers are mended here without scanning a large user's rows.
const HNSW_EF_SEARCH_WIDE = 1000;
const STOP_WORDS = new Set(
  "a an and are as at be but by did do does for from had has have he her his how i if in is it its me my no not of on or our she so that the their them they this to was we were what when where which who why will with you your".split(" "),
);

export type SearchOptions = {
  /** The caller holds `write` (lib/api/access-rule.ts): its retrieval may mark memories accessed. */
  recordAccess: boolean;
  /**
   * Log the retrieval (default true). An eval run (lib/evals) passes false: its questions are
   * measurements, not an agent's reads, so they must not fill a memory's access log.
   */
  log?: boolean;
  /**
   * The active provider, when the caller resolved it already: an eval run searches every
   * case under the one model it started with, without reading the setting per case.
   */
  provider?: EmbeddingProvider;
};

type Candidate = { id: string; cosine?: number; importance_score: number; last_accessed_at: Date | string | null };
type VectorHit = Candidate & { cosine: number };
type TextHit = Omit<Candidate, "cosine"> & { cosine: number | null; text_rank: number };

/** How the vector candidates were found: see vectorCandidates. */
export type VectorPath = "exact" | "hnsw" | "hnsw_wide" | "hnsw_then_exact" | "hnsw_user" | "hnsw_user_wide" | "hnsw_user_then_exact";

// A user with at most this many memories (of the searched status) is searched by an exact
// scan of their own rows (memories' (project_id, user_id, status, ...) btree, then each
// row's vector by primary key) instead of the HNSW graph. The graph is shared by every
// user of the project: a filtered walk must pass ~50 / (the user's share) tuples to find
// 50 of theirs, so a small user's walk stops at hnsw.max_scan_tuples with few or none
// (falls through the graph), while an exact scan costs in proportion to the user's rows.
// Measured in a 1 000 000-memory store of 10 000 users (bench:memories BENCH_SCALE=1m,
// PostgreSQL 15, in process, p50 on a loaded 2-core machine): exact 2.9 ms vs HNSW 648 ms
// for users of 10-55 memories, 63 vs 589 ms at 1 000, 103 vs 236 ms at 3 000, 302 vs
// 203 ms at 10 000, 643 vs 404 ms at 30 000: the paths cross between 3 000 and 10 000.
// The crossing moves with the store's size (a walk's cost grows with total / user rows):
// MEMSCOPE_EXACT_SCAN_MAX moves the line (lib/memories/exact-scan-max.ts).
export { EXACT_SCAN_MAX_MEMORIES } from "./exact-scan-max";

// When an HNSW answer looks thin (thinReason): its k-th best cosine under this floor, or
// at least TEXT_BEATS_MIN full-text candidates it missed that beat its k-th best. On the
// 100 000 set a floor alone had to reach 0.4 to catch the misses ("where does the user
// live": 10th cosine 0.375 from HNSW, 0.428 exact) and then sent 12 % of queries on; the
// text signal caught the same misses by itself (11 %). A floor still covers queries with
// no content words (no text candidates). bench:memories prints both rules' shares.
export const THIN_KTH_COSINE = 0.35;
export const TEXT_BEATS_MIN = 1;

export type VectorQuery = {
  model: string;
  dimensions: number;
  userId: string;
  /** The query vector as pgvector text (toVectorLiteral). */
  vector: string;
  status: SearchInput["status"];
  types: string[] | null;
  /** Candidates wanted (the search asks max(50, 5k)). */
  limit: number;
  k: number;
  /** hnsw.ef_search for the HNSW path (default HNSW_EF_SEARCH; benchmarks sweep it). */
  efSearch?: number;
  /**
   * The user has a valid HNSW index of their own (lib/embeddings/user-vector-indexes.ts):
   * the walk's query names model, project and user as literals, so the planner can prove
   * the partial index's predicate whatever plan it caches.
   */
  ownIndex?: boolean;
  /**
   * An as-of search (lib/memories/as-of/search-as-of.ts): only the rows not changed since this
   * instant (ISO), whose state then is the row itself; it scores the rows changed since on
   * their contents of then, apart.
   */
  unchangedAt?: string;
};

/** The as-of condition of a candidate query (VectorQuery.unchangedAt), with its parameter's number. */
function unchangedSince(v: VectorQuery, param: number, m = "m"): string {
  return v.unchangedAt ? ` AND ${m}.updated_at <= $${param}::timestamptz AND ${m}.created_at <= $${param}::timestamptz` : "";
}

/** The user's memories of one status, from the trigger-kept counts (one row by primary key). */
export async function userMemoryCount(tx: ProjectSql, userId: string, status: string): Promise<number> {
  const [row] = await tx.query<{ n: string | number }>(
    `SELECT n FROM memory_user_counts WHERE project_id = $1 AND user_id = $2 AND status = $3::memory_status`,
    [tx.projectId, userId, status],
  );
  return row ? Number(row.n) : 0;
}

/**
 * HNSW candidates. Filters (user, status, types) are applied while walking the index, not
 * after it (iterative scan), so a selective filter cannot starve the top-k of a large user.
 * Must run inside a transaction (SET LOCAL).
 */
export async function hnswCandidates(tx: ProjectSql, v: VectorQuery): Promise<VectorHit[]> {
  await tx.exec(`SET LOCAL hnsw.iterative_scan = relaxed_order; SET LOCAL hnsw.ef_search = ${Math.trunc(Math.max(v.efSearch ?? HNSW_EF_SEARCH, v.limit))}`);
  const { text, params } = hnswQuery(tx.projectId, v);
  const rows = await tx.query<VectorHit>(text, params);
  return rows.map((r) => ({ ...r, cosine: Number(r.cosine) }));
}

/** The HNSW walk's statement (exported so tests and benchmarks EXPLAIN the very same text). */
export function hnswQuery(projectId: string, v: VectorQuery): { text: string; params: unknown[] } {
  const d = v.dimensions;
  const own = v.ownIndex ? `AND e.model = ${sqlLiteral(v.model)} AND e.user_id = ${sqlLiteral(v.userId)} AND e.project_id = ${sqlLiteral(projectId)}` : "";
  // The user's own index is on the normalized vector (userVectorIndexExpression): only it can
  // serve this ORDER BY, so the planner cannot take the model's index instead (both match
  // the WHERE, and pgvector costs them alike). Cosine distance ignores length: same order.
  const key = v.ownIndex ? userVectorIndexExpression(d, "e.") : `e.embedding::vector(${d})`;
  return {
    text: `SELECT e.memory_id AS id, 1 - (e.embedding::vector(${d}) <=> $3::vector(${d})) AS cosine, m.importance_score, m.last_accessed_at
       FROM memory_embeddings e JOIN memories m ON m.project_id = e.project_id AND m.id = e.memory_id
      WHERE e.model = $1 AND e.user_id = $2 AND e.project_id = $6 ${own} AND m.status = $4::memory_status
        AND ($5::text[] IS NULL OR m.memory_type::text = ANY($5::text[]))${unchangedSince(v, 7)}
      ORDER BY ${key} <=> $3::vector(${d})
      LIMIT ${v.limit}`,
    params: [v.model, v.userId, v.vector, v.status, v.types, projectId, ...(v.unchangedAt ? [v.unchangedAt] : [])],
  };
}

/**
 * The exact top candidates: every row of the user (memories' btree on project, user and
 * status), its vector by primary key, sorted by cosine. Ordering by the cosine, not by the
 * distance operator, keeps the planner off the HNSW index.
 */
export async function exactCandidates(tx: ProjectSql, v: VectorQuery): Promise<VectorHit[]> {
  const d = v.dimensions;
  const rows = await tx.query<VectorHit>(
    `SELECT e.memory_id AS id, 1 - (e.embedding::vector(${d}) <=> $3::vector(${d})) AS cosine, m.importance_score, m.last_accessed_at
       FROM memories m JOIN memory_embeddings e ON e.memory_id = m.id AND e.model = $1 AND e.project_id = $6
      WHERE m.project_id = $6 AND m.user_id = $2 AND m.status = $4::memory_status
        AND ($5::text[] IS NULL OR m.memory_type::text = ANY($5::text[]))${unchangedSince(v, 7)}
      ORDER BY cosine DESC, e.memory_id
      LIMIT ${v.limit}`,
    [v.model, v.userId, v.vector, v.status, v.types, tx.projectId, ...(v.unchangedAt ? [v.unchangedAt] : [])],
  );
  return rows.map((r) => ({ ...r, cosine: Number(r.cosine) }));
}

/**
 * Full-text candidates, each with its exact cosine (one lookup each, after the LIMIT, so no
 * second round trip). Content words only (letters and digits, so safe inside a tsquery);
 * any may match. An AND of several words looked cheaper but makes GIN intersect long
 * posting lists (20 ms at 30 000 memories); OR with a bounded pool stops after the first
 * matches.
 */
export async function textCandidates(tx: ProjectSql, v: VectorQuery, query: string): Promise<TextHit[]> {
  const words = [...new Set(lexicalTokens(query))].filter((w) => w.length > 1 && !STOP_WORDS.has(w)).slice(0, 32);
  if (!words.length) return [];
  const d = v.dimensions;
  const rows = await tx.query<TextHit>(
    `SELECT p.id, p.importance_score, p.last_accessed_at,
            (SELECT 1 - (e.embedding::vector(${d}) <=> $5::vector(${d})) FROM memory_embeddings e
              WHERE e.memory_id = p.id AND e.model = $6 AND e.project_id = $7) AS cosine,
            ts_rank(p.search_tsv, to_tsquery('simple', $3)) AS text_rank
       FROM (SELECT m.id, m.search_tsv, m.importance_score, m.last_accessed_at FROM memories m
              WHERE m.user_id = $1 AND m.project_id = $7 AND m.status = $2::memory_status AND m.search_tsv @@ to_tsquery('simple', $3)
                AND ($4::text[] IS NULL OR m.memory_type::text = ANY($4::text[]))${unchangedSince(v, 8)}
              LIMIT ${TEXT_RANK_POOL}) p
      ORDER BY text_rank DESC
      LIMIT ${TEXT_CANDIDATES}`,
    [v.userId, v.status, words.join(" | "), v.types, v.vector, v.model, tx.projectId, ...(v.unchangedAt ? [v.unchangedAt] : [])],
  );
  return rows.map((r) => ({ ...r, cosine: r.cosine === null ? null : Number(r.cosine), text_rank: Number(r.text_rank) }));
}

export type ThinReason = "few" | "low_kth" | "text_beats";

/** Text candidates outside the graph's answer whose exact cosine beats its k-th best. */
export function textAboveKth(hits: readonly { id: string; cosine: number }[], k: number, textHits: readonly { id: string; cosine: number | null }[]): number {
  if (hits.length < k) return 0;
  const kth = hits.map((h) => h.cosine).sort((a, b) => b - a)[k - 1];
  const ids = new Set(hits.map((h) => h.id));
  return textHits.filter((t) => t.cosine !== null && !ids.has(t.id) && t.cosine > kth + 1e-6).length;
}

/**
 * Why an HNSW answer may have missed the user's nearest memories (null: it looks sound):
 * - "few": fewer than k candidates while the user has more rows (the walk stopped at
 *   hnsw.max_scan_tuples);
 * - "low_kth": its k-th best cosine is under THIN_KTH_COSINE (a query nearly orthogonal to
 *   everything: the greedy walk starts on a flat landscape);
 * - "text_beats": at least TEXT_BEATS_MIN full-text candidates the graph did not return
 *   have a higher cosine than its k-th best, so the walk demonstrably missed neighbours.
 */
export function thinReason(
  hits: readonly { id: string; cosine: number }[],
  k: number,
  userCount: number,
  textHits: readonly { id: string; cosine: number | null }[] = [],
): ThinReason | null {
  if (hits.length < Math.min(k, userCount)) return "few";
  if (!hits.length) return null;
  const kth = hits.map((h) => h.cosine).sort((a, b) => b - a)[Math.min(k, hits.length) - 1];
  if (kth < THIN_KTH_COSINE) return "low_kth";
  if (textAboveKth(hits, k, textHits) >= TEXT_BEATS_MIN) return "text_beats";
  return null;
}

/** The user's memories of one status and of all (the per-user index holds every status): one read. */
async function userCounts(tx: ProjectSql, userId: string, status: string): Promise<{ n: number; total: number }> {
  const [row] = await tx.query<{ n: string | number; total: string | number }>(
    `SELECT coalesce(sum(n) FILTER (WHERE status = $3::memory_status), 0) AS n, coalesce(sum(n), 0) AS total
       FROM memory_user_counts WHERE project_id = $1 AND user_id = $2`,
    [tx.projectId, userId, status],
  );
  return { n: Number(row?.n ?? 0), total: Number(row?.total ?? 0) };
}

/**
 * The vector candidates of a search, by the cheaper path that does not miss: an exact scan
 * for a user with at most exactScanMaxMemories() memories; otherwise HNSW; when its answer
 * looks thin, a wider HNSW walk (ef_search HNSW_EF_SEARCH_WIDE), and when that looks thin
 * too, an exact scan (thinReason; `textHits` are the search's full-text
 * candidates with their cosines).
 * A user with an HNSW index of their own (at least userVectorIndexMin() memories) walks it
 * unfiltered ("hnsw_user"), then wider ("hnsw_user_wide"); the exact scan follows only
 * when the wide walk returned fewer than k rows of a user who has more. A low k-th cosine
 * or a full-text candidate above it no longer sends such a user on: the exact scan of
 * 100 000 rows spread over a large table costs 1.3-1.8 s, a walk of their own graph at
 * ef_search 1000 misses little (bench:memories), and the search ranks the full-text
 * candidates, with their exact cosines, among the vector ones anyway.
 * `needsIndex` is set when the user is large enough for an index of their own but has
 * none yet (searchMemories queues its build). `force` pins a path (benchmarks). Must run
 * inside a transaction.
 */
export async function vectorCandidates(
  tx: ProjectSql,
  v: VectorQuery,
  opts: { textHits?: readonly { id: string; cosine: number | null }[]; force?: "exact" | "hnsw" | "hnsw_shared"; counts?: { n: number; total: number } } = {},
): Promise<{ hits: VectorHit[]; path: VectorPath; userCount: number; thin: ThinReason | null; needsIndex: boolean }> {
  const { n: userCount, total } = opts.counts ?? (await userCounts(tx, v.userId, v.status));
  if (opts.force === "exact" || (!opts.force && userCount <= exactScanMaxMemories())) {
    return { hits: await exactCandidates(tx, v), path: "exact", userCount, thin: null, needsIndex: false };
  }
  const min = userVectorIndexMin();
  const large = min > 0 && total >= min;
  const own = large && opts.force !== "hnsw_shared" && (await userVectorIndexReady(tx, v.model, tx.projectId, v.userId));
  const needsIndex = large && !own;
  const q = { ...v, ownIndex: own };
  const hits = await hnswCandidates(tx, q);
  const thin = thinReason(hits, v.k, userCount, opts.textHits);
  if (opts.force === "hnsw" || opts.force === "hnsw_shared" || !thin) return { hits, path: own ? "hnsw_user" : "hnsw", userCount, thin, needsIndex };
  const wide = await hnswCandidates(tx, { ...q, efSearch: Math.max(HNSW_EF_SEARCH_WIDE, v.efSearch ?? 0) });
  const wideThin = thinReason(wide, v.k, userCount, opts.textHits);
  if (!wideThin || (own && wideThin !== "few")) return { hits: wide, path: own ? "hnsw_user_wide" : "hnsw_wide", userCount, thin, needsIndex };
  return { hits: await exactCandidates(tx, v), path: own ? "hnsw_user_then_exact" : "hnsw_then_exact", userCount, thin, needsIndex };
}

/**
 * Scored retrieval: vector candidates (vectorCandidates: an exact per-user scan or the
 * model's HNSW index) and full-text candidates, exact cosine for each, then
 * score = w_s * cosine + w_r * time_decay + w_i * importance.
 * Candidates carry only what scoring needs; full rows are read for the top k only.
 * Every retrieval is logged. Returned memories are marked accessed (access_count,
 * last_accessed_at) only when the caller may write (recordAccess) and did not ask for a
 * dry run: last_accessed_at feeds every later search's recency term, so a read-only caller
 * must not change what others retrieve.
 */
export async function searchMemories(sql: ProjectSql, userId: string, input: SearchInput, opts: SearchOptions): Promise<SearchResult> {
  const started = performance.now();
  const provider = opts.provider ?? (await activeProvider(sql));
  // The retrieval is logged against this conversation: it must be this user's.
  if (input.conversation_id) {
    await requireConversationOfUser(sql, input.conversation_id, userId, { field: "conversation_id", missing: "invalid" });
  }
  const [qv] = await provider.embed([input.query]);
  const q = toVectorLiteral(qv);
  const d = provider.dimensions;
  const weights: Weights = { ...DEFAULT_WEIGHTS, ...input.weights };
  const types = input.memory_types ?? null;
  const vectorN = Math.max(50, input.k * 5);
  const { vectorHits, vectorPath, textHits, needsIndex } = await sql.transaction(async (tx) => {
    const v: VectorQuery = { model: provider.model, dimensions: d, userId, vector: q, status: input.status, types, limit: vectorN, k: input.k };
    // Text candidates first: their exact cosines also tell whether the graph missed neighbours.
    const textHits = await textCandidates(tx, v, input.query);
    const vector = await vectorCandidates(tx, v, { textHits });
    return { vectorHits: vector.hits, vectorPath: vector.path, textHits, needsIndex: vector.needsIndex };
  });
  // A large user without an index of their own yet: built in the background (PostgreSQL;
  // the embedded database builds at start-up), this search used the shared graph.
  if (needsIndex) scheduleUserVectorIndex(await getDb(), provider.model, d, sql.projectId, userId);

  const top = rankCandidates(vectorHits, textHits, weights, input, Date.now());
  const memories = await loadMemories(sql, top.map((t) => t.id));
  const ranked = top.map((t) => ({ memory: memories.get(t.id)!, score: t.breakdown.final, breakdown: t.breakdown }));
  const latency = performance.now() - started;

  // The access bump, the retrieval and its hits: one statement, so one round trip and
  // all or nothing without an explicit transaction. The bump locks its rows first, in id
  // order (`locked`): an UPDATE alone visits them in heap order, which differs between two
  // searches once rows have moved (every bump rewrites them), so concurrent searches with
  // overlapping hits locked them in opposite orders and deadlocked (issue 43). Every other
  // writer of many memory rows locks them in id order too (bulk-update.ts, curation-db.ts).
  const bump = opts.recordAccess && !input.dry_run && ranked.length > 0;
  if (opts.log === false) {
    return { data: ranked, embedding_model: provider.model, embedding_kind: provider.kind, weights, retrieval_id: null, latency_ms: latency, vector_path: vectorPath, access_recorded: false };
  }
  const retrievalId = randomUUID();
  await sql.query(
    `WITH ${
      bump
        ? `locked AS (SELECT id FROM memories WHERE id = ANY($11::uuid[]) AND project_id = $17 ORDER BY id FOR NO KEY UPDATE),
           bumped AS (UPDATE memories m SET access_count = m.access_count + 1, last_accessed_at = now() FROM locked WHERE m.id = locked.id AND m.project_id = $17),`
        : ""
    }
          retrieval AS (
            INSERT INTO memory_retrievals (id, user_id, query, conversation_id, embedding_model, k, weights, dry_run, latency_ms, result_count, project_id, access_recorded)
            VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8, $9, $10, $17, $18))
     INSERT INTO memory_retrieval_hits (retrieval_id, rank, memory_id, score, cosine, time_decay, importance, project_id)
     SELECT $1, u.rank, u.memory_id, u.score, u.cosine, u.time_decay, u.importance, $17
       FROM unnest($12::int[], $11::uuid[], $13::float8[], $14::float8[], $15::float8[], $16::float8[])
         AS u(rank, memory_id, score, cosine, time_decay, importance)`,
    [
      retrievalId,
      userId,
      input.query,
      input.conversation_id ?? null,
      provider.model,
      input.k,
      JSON.stringify(weights),
      input.dry_run,
      latency,
      ranked.length,
      ranked.map((r) => r.memory.id),
      ranked.map((_, i) => i + 1),
      ranked.map((r) => r.score),
      ranked.map((r) => r.breakdown.cosine),
      ranked.map((r) => r.breakdown.time_decay),
      ranked.map((r) => r.breakdown.importance),
      sql.projectId,
      // Whether the hits were counted: an as-of read rebuilds access_count from this log.
      bump,
    ],
  );

  return { data: ranked, embedding_model: provider.model, embedding_kind: provider.kind, weights, retrieval_id: retrievalId, latency_ms: latency, vector_path: vectorPath, access_recorded: bump };
}

/**
 * A search's vector and full-text candidates merged (a memory found both ways is matched by
 * both), scored, filtered by min_score and ranked: the top k, by score, then id on ties.
 */
function rankCandidates(vectorHits: readonly Candidate[], textHits: readonly TextHit[], weights: Weights, input: { k: number; min_score?: number }, now: number): { id: string; breakdown: Breakdown }[] {
  const candidates = new Map<string, Candidate>(vectorHits.map((h) => [h.id, h]));
  const matched = new Map<string, Breakdown["matched_by"]>(vectorHits.map((h) => [h.id, ["vector"]]));
  for (const h of textHits) {
    if (candidates.has(h.id)) matched.set(h.id, ["vector", "text"]);
    else {
      candidates.set(h.id, { ...h, cosine: h.cosine ?? undefined });
      matched.set(h.id, ["text"]);
    }
  }
  return [...candidates.values()]
    .map((c) => ({
      id: c.id,
      breakdown: scoreMemory(
        { cosine: Number(c.cosine ?? 0), importance: Number(c.importance_score), lastAccessedAt: c.last_accessed_at, matchedBy: matched.get(c.id)! },
        weights,
        now,
      ),
    }))
    .filter((r) => input.min_score === undefined || r.breakdown.final >= input.min_score)
    .sort((a, b) => b.breakdown.final - a.breakdown.final || a.id.localeCompare(b.id))
    .slice(0, input.k);
}

/**
 * The exact top candidates of several query vectors at once: the user's rows and their
 * vectors read once (a materialized CTE), then each query's top `limit` by cosine over them,
 * in exactCandidates' order (cosine, then id) with its arithmetic (the same operator on the
 * same float4 vectors). One read of the rows instead of one per query.
 */
export async function exactCandidatesMany(tx: ProjectSql, v: Omit<VectorQuery, "vector" | "unchangedAt">, vectors: readonly string[]): Promise<VectorHit[][]> {
  if (!vectors.length) return [];
  const d = v.dimensions;
  const rows = await tx.query<VectorHit & { q: number }>(
    `WITH own AS MATERIALIZED (
       SELECT e.memory_id AS id, e.embedding::vector(${d}) AS embedding, m.importance_score, m.last_accessed_at
         FROM memories m JOIN memory_embeddings e ON e.memory_id = m.id AND e.model = $1 AND e.project_id = $6
        WHERE m.project_id = $6 AND m.user_id = $2 AND m.status = $4::memory_status
          AND ($5::text[] IS NULL OR m.memory_type::text = ANY($5::text[]))),
     queries AS MATERIALIZED (SELECT (q.n - 1)::int AS q, q.v::vector(${d}) AS v FROM unnest($3::text[]) WITH ORDINALITY AS q(v, n))
     SELECT queries.q, x.id, x.cosine, x.importance_score, x.last_accessed_at
       FROM queries CROSS JOIN LATERAL (
         SELECT own.id, 1 - (own.embedding <=> queries.v) AS cosine, own.importance_score, own.last_accessed_at
           FROM own ORDER BY cosine DESC, own.id LIMIT ${v.limit}) x
      ORDER BY queries.q, x.cosine DESC, x.id`,
    [v.model, v.userId, vectors, v.status, v.types, tx.projectId],
  );
  const out: VectorHit[][] = vectors.map(() => []);
  for (const r of rows) out[r.q].push({ id: r.id, cosine: Number(r.cosine), importance_score: r.importance_score, last_accessed_at: r.last_accessed_at });
  return out;
}

export type ManySearchConfig = Pick<SearchInput, "k" | "memory_types" | "weights" | "min_score" | "status">;
export type ManySearchResult = { data: { memory: Memory; score: number; breakdown: Breakdown }[]; latency_ms: number };

/**
 * Several queries of one user under one configuration, each answered as searchMemories
 * answers it as a dry run without a log (an eval run's cases: lib/evals/run-eval.ts), with
 * the work they share done once: the queries embedded in one call, the user's row counts
 * read once, their exact vector candidates in one statement (exactCandidatesMany) when the
 * user is searched by an exact scan, and the memories returned loaded in one statement.
 * Full-text candidates stay one statement per query, as are the HNSW walks of a larger
 * user. A query's latency_ms is its own statements' time plus an equal share of the shared
 * ones.
 */
export async function searchMemoriesMany(sql: ProjectSql, userId: string, queries: readonly string[], config: ManySearchConfig, provider: EmbeddingProvider): Promise<ManySearchResult[]> {
  if (!queries.length) return [];
  let shared = performance.now();
  const own = queries.map(() => 0);
  const vectors = (await provider.embed([...queries])).map(toVectorLiteral);
  const weights: Weights = { ...DEFAULT_WEIGHTS, ...config.weights };
  const base = { model: provider.model, dimensions: provider.dimensions, userId, status: config.status, types: config.memory_types ?? null, limit: Math.max(50, config.k * 5), k: config.k };
  const found = await sql.transaction(async (tx) => {
    const counts = await userCounts(tx, userId, config.status);
    shared = performance.now() - shared;
    const textHits: TextHit[][] = [];
    for (const [i, query] of queries.entries()) {
      const t = performance.now();
      textHits.push(await textCandidates(tx, { ...base, vector: vectors[i] }, query));
      own[i] += performance.now() - t;
    }
    if (counts.n <= exactScanMaxMemories()) {
      const t = performance.now();
      const hits = await exactCandidatesMany(tx, base, vectors);
      shared += performance.now() - t;
      return hits.map((h, i) => ({ vectorHits: h, textHits: textHits[i], needsIndex: false }));
    }
    const out: { vectorHits: VectorHit[]; textHits: TextHit[]; needsIndex: boolean }[] = [];
    for (const [i, vector] of vectors.entries()) {
      const t = performance.now();
      const r = await vectorCandidates(tx, { ...base, vector }, { textHits: textHits[i], counts });
      out.push({ vectorHits: r.hits, textHits: textHits[i], needsIndex: r.needsIndex });
      own[i] += performance.now() - t;
    }
    return out;
  });
  if (found.some((f) => f.needsIndex)) scheduleUserVectorIndex(await getDb(), provider.model, provider.dimensions, sql.projectId, userId);
  const now = Date.now();
  const tops = found.map((f, i) => {
    const t = performance.now();
    const top = rankCandidates(f.vectorHits, f.textHits, weights, config, now);
    own[i] += performance.now() - t;
    return top;
  });
  const t = performance.now();
  const memories = await loadMemories(sql, [...new Set(tops.flatMap((top) => top.map((x) => x.id)))]);
  shared += performance.now() - t;
  return tops.map((top, i) => ({
    data: top.map((x) => ({ memory: memories.get(x.id)!, score: x.breakdown.final, breakdown: x.breakdown })),
    latency_ms: own[i] + shared / queries.length,
  }));
}
