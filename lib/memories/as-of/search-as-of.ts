import "server-only";
import type { ProjectSql } from "../../db/project-sql";
import { cachedVectors } from "../../embeddings/embedding-cache";
import type { ActiveModel } from "../../embeddings/active-model";
import { activeModelAt, providerOfModel } from "../../embeddings/model-at";
import { lexicalTokens } from "../../embeddings/lexical-embedder";
import { scoreMemory } from "../score-memory";
import { textCandidates, vectorCandidates, type VectorQuery } from "../search-memories";
import { DEFAULT_WEIGHTS, type Breakdown, type MemoryAsOf, type SearchInput, type SearchResult, type Weights } from "../schemas";
import { probeUserFast } from "./history-probe";
import { asOfInstant, exactAsOf, withRelationsAsOf } from "./list-as-of";
import { fastStateAt } from "./rebuild-state";
import { stateCtes } from "./state-sql";
import type { RebuiltMemory } from "./rebuild-state";

// Memory search as it would have run at T: the memories of then (content, status, type,
// importance, accesses), the embedding model active then, time decay measured from T.
// The candidates are those of a live search: the max(50, 5k) nearest by cosine, plus up to
// 50 full-text matches of the query words, then the same score.
// It writes nothing but the embedding cache: no retrieval log, no access bump.

const TEXT_CANDIDATES = 50;
// The live search's stop words (search-memories.ts): the same words make text candidates.
const STOP_WORDS = new Set(
  "a an and are as at be but by did do does for from had has have he her his how i if in is it its me my no not of on or our she so that the their them they this to was we were what when where which who why will with you your".split(" "),
);

export type AsOfSearchInput = Pick<SearchInput, "query" | "k"> & Partial<Pick<SearchInput, "memory_types" | "weights" | "min_score" | "status">>;

/** One memory scored at T: rank 1.. over every candidate, before k and min_score cut the list. */
export type ScoredAsOf = { memory: RebuiltMemory; score: number; breakdown: Breakdown; rank: number };

export type RankedAsOf = {
  as_of: string;
  embedding_model: string;
  embedding_kind: SearchResult["embedding_kind"];
  weights: Weights;
  /** The pool searched: memories alive at T of this status and of these types (null: any). */
  status: string;
  memory_types: string[] | null;
  /** Every candidate in score order (k not applied; min_score not applied). */
  candidates: ScoredAsOf[];
};

export type SearchAsOfResult = Omit<SearchResult, "data"> & {
  data: { memory: MemoryAsOf; score: number; breakdown: Breakdown; rank: number }[];
  as_of: string;
};

function queryWords(query: string): string[] {
  return [...new Set(lexicalTokens(query))].filter((w) => w.length > 1 && !STOP_WORDS.has(w)).slice(0, 32);
}

/** A user's trigger-kept counts: memories by status (every status the user has), and those with a vector of one model. */
export type UserCountsByStatus = { byStatus: Record<string, number>; embedded: number };

type AsOfCounts = { n: number; memories: number; embedded: number };

/**
 * The trigger-kept counts a search at T reads, in one statement: the user's memories of the
 * searched status and of all (which path vectorCandidates takes, as userCounts would read them)
 * and those with a vector of the model of then.
 */
export async function readAsOfCounts(sql: ProjectSql, userId: string, model: string, status: string): Promise<AsOfCounts> {
  const [c] = await sql.query<{ n: string | number; memories: string | number; embedded: string | number }>(
    `SELECT (SELECT coalesce(sum(n) FILTER (WHERE status = $4::memory_status), 0) FROM memory_user_counts WHERE project_id = $1 AND user_id = $2) AS n,
            (SELECT coalesce(sum(n), 0) FROM memory_user_counts WHERE project_id = $1 AND user_id = $2) AS memories,
            (SELECT coalesce(sum(n), 0) FROM memory_embedding_counts WHERE project_id = $1 AND user_id = $2 AND model = $3) AS embedded`,
    [sql.projectId, userId, model, status],
  );
  return { n: Number(c.n), memories: Number(c.memories), embedded: Number(c.embedded) };
}

/** readAsOfCounts's answer from counts read by status beforehand. */
export function countsOfStatus(c: UserCountsByStatus, status: string): AsOfCounts {
  let memories = 0;
  for (const n of Object.values(c.byStatus)) memories += n;
  return { n: c.byStatus[status] ?? 0, memories, embedded: c.embedded };
}

type MovedRow = { id: string; content: string; cosine: number | string | null; text_rank: number | string | null };

/**
 * Every memory a search at T would have considered, scored and ranked as then. The replay
 * builds "why in / why out" on this: a memory's rank, its score parts, or that it was no
 * candidate, is not of the searched status or type, or did not exist yet.
 *
 * The pool is the user's memories alive at T of the searched status and types, in two parts:
 * - those not changed since T are their own state then: their candidates are found as a live
 *   search finds them (search-memories.ts: the exact scan or the HNSW walk, and the
 *   full-text matches), restricted to rows unchanged since T, so a replay at the present
 *   instant ranks exactly as POST /context does;
 * - those changed since T, and those deleted since, are rebuilt in SQL (state-sql.ts) and
 *   all scored: the stored vector when their content of then is today's, else the content of
 *   then embedded (through the cache), and a full-text match on the content of then.
 * Only the candidates leave the database with their state (probeUserFast).
 */
export async function rankMemoriesAsOf(
  sql: ProjectSql,
  o: {
    userId: string;
    asOf: string | Date;
    input: AsOfSearchInput;
    /** What the caller read already for this user at this instant (a replay, with its turn): the model active then and the counts. */
    known?: { model: ActiveModel; counts: UserCountsByStatus };
  },
): Promise<RankedAsOf> {
  const at = asOfInstant(o.asOf);
  const t = new Date(at).getTime();
  const model = o.known?.model ?? (await activeModelAt(sql, at));
  const provider = providerOfModel(model);
  const d = model.dimensions;
  const weights: Weights = { ...DEFAULT_WEIGHTS, ...o.input.weights };
  const status = o.input.status ?? "active";
  const types = o.input.memory_types ?? null;
  const vectorN = Math.max(50, o.input.k * 5);
  const query = o.input.query;
  const words = queryWords(query);
  const qv = (await cachedVectors(sql, provider, [query], o.userId)).get(query)!;

  // Unchanged since T: a live search's candidates among them.
  const v: VectorQuery = { model: model.model, dimensions: d, userId: o.userId, vector: qv, status: status as VectorQuery["status"], types, limit: vectorN, k: o.input.k, unchangedAt: at };
  const counts = o.known ? countsOfStatus(o.known.counts, status) : await readAsOfCounts(sql, o.userId, model.model, status);
  const { textHits, vectorHits } = await sql.transaction(async (tx) => {
    const textHits = await textCandidates(tx, v, query);
    const vector = await vectorCandidates(tx, v, { textHits, counts: { n: Number(counts.n), total: Number(counts.memories) } });
    return { textHits, vectorHits: vector.hits };
  });
  // Unchanged since T yet without a stored vector of the model of then (a model switched
  // since, or never embedded): scored on their content, embedded through the cache. Looked
  // for only when the trigger-kept counts say some memory of the user lacks one (migration
  // 20261126140100_memory_embedding_counts): the anti-join reads every memory of the user.
  const allEmbedded = Number(counts.embedded) >= Number(counts.memories);
  const unembedded = allEmbedded
    ? []
    : await sql.query<{ id: string; content: string }>(
        `SELECT m.id, m.content FROM memories m
          WHERE m.project_id = $1 AND m.user_id = $2 AND m.status = $4::memory_status AND m.updated_at <= $3::timestamptz AND m.created_at <= $3::timestamptz
            AND ($5::text[] IS NULL OR m.memory_type::text = ANY($5::text[]))
            AND NOT EXISTS (SELECT 1 FROM memory_embeddings e WHERE e.model = $6 AND e.memory_id = m.id AND e.project_id = $1)`,
        [sql.projectId, o.userId, at, status, types, model.model],
      );
  // Changed since T or deleted since, in the pool then: every one scored.
  const moved = await sql.query<MovedRow>(
    `WITH ${stateCtes({ content: true, changedOnly: true })}
     SELECT s.id, s.content,
            CASE WHEN s.same_content THEN (SELECT 1 - (e.embedding::vector(${d}) <=> $7::vector(${d})) FROM memory_embeddings e
                                            WHERE e.project_id = $1 AND e.memory_id = s.id AND e.model = $6) END AS cosine,
            CASE WHEN $8::text IS NOT NULL AND to_tsvector('simple', s.content) @@ to_tsquery('simple', $8)
                 THEN ts_rank(to_tsvector('simple', s.content), to_tsquery('simple', $8)) END AS text_rank
       FROM state s
      WHERE s.status = $4 AND ($5::text[] IS NULL OR s.memory_type = ANY($5::text[]))`,
    [sql.projectId, o.userId, at, status, types, model.model, qv, words.length ? words.join(" | ") : null],
  );

  const cosines = new Map<string, number>();
  for (const h of vectorHits) cosines.set(h.id, h.cosine);
  for (const h of textHits) if (h.cosine !== null) cosines.set(h.id, h.cosine);
  for (const r of moved) if (r.cosine !== null) cosines.set(r.id, Number(r.cosine));
  // Contents of then without a stored vector: embedded through the cache, scored in SQL.
  const rest = [...unembedded, ...moved.filter((r) => r.cosine === null)];
  if (rest.length) {
    const vectors = await cachedVectors(sql, provider, rest.map((r) => r.content), o.userId);
    const scored = await sql.query<{ id: string; cosine: number }>(
      `SELECT x.id, 1 - (x.v::vector(${d}) <=> $1::vector(${d})) AS cosine FROM unnest($2::uuid[], $3::text[]) AS x(id, v)`,
      [qv, rest.map((r) => r.id), rest.map((r) => vectors.get(r.content)!)],
    );
    for (const r of scored) cosines.set(r.id, Number(r.cosine));
  }
  const byIdAsc = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  // The nearest: the unchanged rows' vector candidates and every other row of the pool.
  const vector = [...new Set([...vectorHits.map((h) => h.id), ...rest.map((r) => r.id), ...moved.map((r) => r.id)])]
    .sort((a, b) => cosines.get(b)! - cosines.get(a)! || byIdAsc(a, b))
    .slice(0, vectorN);
  // The full-text matches: the unchanged rows' and the moved rows' of then, best first.
  const textRank = new Map<string, number>(textHits.map((h) => [h.id, h.text_rank]));
  for (const r of moved) if (r.text_rank !== null) textRank.set(r.id, Number(r.text_rank));
  const textIds = [...textRank.keys()].sort((a, b) => textRank.get(b)! - textRank.get(a)! || byIdAsc(a, b)).slice(0, TEXT_CANDIDATES);
  const matched = new Map<string, Breakdown["matched_by"]>(vector.map((id) => [id, ["vector"]]));
  for (const id of textIds) matched.set(id, matched.has(id) ? ["vector", "text"] : ["text"]);
  // The candidates in their state of then (accesses, importance), as a full list would read them.
  const probes = await probeUserFast(sql, at, o.userId, { ids: [...matched.keys()] });
  const byId = new Map(probes.map((p) => [p.id, fastStateAt(p, t)]));
  const candidates = [...matched.entries()]
    .filter(([id]) => byId.get(id))
    .map(([id, matchedBy]) => {
      const m = byId.get(id)!;
      const breakdown = scoreMemory({ cosine: cosines.get(id) ?? 0, importance: m.importance_score, lastAccessedAt: m.last_accessed_at, matchedBy }, weights, t);
      return { memory: m, score: breakdown.final, breakdown, rank: 0 };
    })
    .sort((a, b) => b.score - a.score || byIdAsc(a.memory.id, b.memory.id));
  candidates.forEach((c, i) => (c.rank = i + 1));
  return { as_of: at, embedding_model: model.model, embedding_kind: provider.kind, weights, status, memory_types: types, candidates };
}

/**
 * POST /users/{user_id}/memories/search?as_of=T: the hits a search would have returned at T,
 * in today's hit shape (score parts cosine / time_decay / importance), with each memory as
 * it was then. Logs nothing and marks nothing accessed (retrieval_id null).
 */
export async function searchMemoriesAsOf(sql: ProjectSql, o: { userId: string; asOf: string | Date; input: AsOfSearchInput }): Promise<SearchAsOfResult> {
  const started = performance.now();
  const ranked = await rankMemoriesAsOf(sql, o);
  const top = ranked.candidates.filter((c) => o.input.min_score === undefined || c.score >= o.input.min_score).slice(0, o.input.k);
  const exact = new Map((await exactAsOf(sql, top.map((c) => c.memory.id), ranked.as_of)).map((m) => [m.id, m]));
  const memories = await withRelationsAsOf(sql, top.map((c) => exact.get(c.memory.id) ?? c.memory), ranked.as_of);
  return {
    data: top.map((c, i) => ({ memory: memories[i], score: c.score, breakdown: c.breakdown, rank: i + 1 })),
    embedding_model: ranked.embedding_model,
    embedding_kind: ranked.embedding_kind,
    weights: ranked.weights,
    retrieval_id: null,
    latency_ms: performance.now() - started,
    access_recorded: false,
    vector_path: "exact",
    as_of: ranked.as_of,
  };
}
