import "server-only";
import type { ProjectSql } from "../../db/project-sql";
import { cachedVectors } from "../../embeddings/embedding-cache";
import { activeModelAt, providerOfModel } from "../../embeddings/model-at";
import { lexicalTokens } from "../../embeddings/lexical-embedder";
import { scoreMemory } from "../score-memory";
import { DEFAULT_WEIGHTS, type Breakdown, type MemoryAsOf, type SearchInput, type SearchResult, type Weights } from "../schemas";
import { asOfInstant, exactAsOf, memoriesAsOf, withRelationsAsOf } from "./list-as-of";
import type { RebuiltMemory } from "./rebuild-state";

// Memory search as it would have run at T: the memories of then (content, status, type,
// importance, accesses), the embedding model active then, time decay measured from T.
// The candidates are those of a live search, found exactly: the max(50, 5k) nearest by
// cosine, plus up to 50 full-text matches of the query words, then the same score.
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
  /** Every candidate in score order (k not applied; min_score not applied). */
  candidates: ScoredAsOf[];
  /** Memories alive at T of the searched status and types that were no candidate (neither near enough nor a text match). */
  not_candidates: RebuiltMemory[];
};

export type SearchAsOfResult = Omit<SearchResult, "data"> & {
  data: { memory: MemoryAsOf; score: number; breakdown: Breakdown; rank: number }[];
  as_of: string;
};

function queryWords(query: string): string[] {
  return [...new Set(lexicalTokens(query))].filter((w) => w.length > 1 && !STOP_WORDS.has(w)).slice(0, 32);
}

/** Cosine of each memory's content at T with the query, under `model`. */
async function cosinesAt(
  sql: ProjectSql,
  memories: RebuiltMemory[],
  query: string,
  model: { model: string; dimensions: number },
  provider: ReturnType<typeof providerOfModel>,
  userId: string,
): Promise<Map<string, number>> {
  const d = model.dimensions;
  if (!memories.length) return new Map();
  // The query and every content that is no memory's current stored text: through the cache.
  const current = await sql.query<{ id: string; content: string }>(`SELECT id, content FROM memories WHERE project_id = $1 AND id = ANY($2::uuid[])`, [
    sql.projectId,
    memories.map((m) => m.id),
  ]);
  const now = new Map(current.map((r) => [r.id, r.content]));
  const same = memories.filter((m) => now.get(m.id) === m.content);
  const qv = (await cachedVectors(sql, provider, [query], userId)).get(query)!;
  const out = new Map<string, number>();
  if (same.length) {
    const rows = await sql.query<{ id: string; cosine: number }>(
      `SELECT e.memory_id AS id, 1 - (e.embedding::vector(${d}) <=> $3::vector(${d})) AS cosine
         FROM memory_embeddings e WHERE e.project_id = $1 AND e.model = $2 AND e.memory_id = ANY($4::uuid[])`,
      [sql.projectId, model.model, qv, same.map((m) => m.id)],
    );
    for (const r of rows) out.set(r.id, Number(r.cosine));
  }
  // Content changed since, memory deleted since, or no stored vector of that model any more.
  const rest = memories.filter((m) => !out.has(m.id));
  if (rest.length) {
    const vectors = await cachedVectors(sql, provider, rest.map((m) => m.content), userId);
    const rows = await sql.query<{ id: string; cosine: number }>(
      `SELECT x.id, 1 - (x.v::vector(${d}) <=> $1::vector(${d})) AS cosine FROM unnest($2::uuid[], $3::text[]) AS x(id, v)`,
      [qv, rest.map((m) => m.id), rest.map((m) => vectors.get(m.content)!)],
    );
    for (const r of rows) out.set(r.id, Number(r.cosine));
  }
  return out;
}

/** Full-text candidates on the content of then: the query's content words, any of them, best ts_rank first. */
async function textCandidatesAt(sql: ProjectSql, memories: RebuiltMemory[], query: string): Promise<string[]> {
  const words = queryWords(query);
  if (!words.length || !memories.length) return [];
  const rows = await sql.query<{ id: string }>(
    `SELECT x.id FROM unnest($1::uuid[], $2::text[]) AS x(id, c)
      WHERE to_tsvector('simple', x.c) @@ to_tsquery('simple', $3)
      ORDER BY ts_rank(to_tsvector('simple', x.c), to_tsquery('simple', $3)) DESC, x.id
      LIMIT ${TEXT_CANDIDATES}`,
    [memories.map((m) => m.id), memories.map((m) => m.content), words.join(" | ")],
  );
  return rows.map((r) => r.id);
}

/**
 * Every memory a search at T would have considered, scored and ranked as then. The replay
 * builds "why in / why out" on this: a memory's rank, its score parts, or that it was no
 * candidate, is not of the searched status or type, or did not exist yet.
 */
export async function rankMemoriesAsOf(sql: ProjectSql, o: { userId: string; asOf: string | Date; input: AsOfSearchInput }): Promise<RankedAsOf> {
  const at = asOfInstant(o.asOf);
  const t = new Date(at).getTime();
  const model = await activeModelAt(sql, at);
  const provider = providerOfModel(model);
  const weights: Weights = { ...DEFAULT_WEIGHTS, ...o.input.weights };
  const status = o.input.status ?? "active";
  const types = o.input.memory_types ?? null;
  const pool = (await memoriesAsOf(sql, { userId: o.userId, asOf: at })).filter((m) => m.status === status && (!types || types.includes(m.memory_type)));
  const cosines = await cosinesAt(sql, pool, o.input.query, model, provider, o.userId);
  const vectorN = Math.max(50, o.input.k * 5);
  const byId = new Map(pool.map((m) => [m.id, m]));
  const vector = [...cosines.entries()]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .slice(0, vectorN)
    .map(([id]) => id);
  const text = await textCandidatesAt(sql, pool, o.input.query);
  const matched = new Map<string, Breakdown["matched_by"]>(vector.map((id) => [id, ["vector"]]));
  for (const id of text) matched.set(id, matched.has(id) ? ["vector", "text"] : ["text"]);
  const candidates = [...matched.entries()]
    .map(([id, matchedBy]) => {
      const m = byId.get(id)!;
      const breakdown = scoreMemory({ cosine: cosines.get(id) ?? 0, importance: m.importance_score, lastAccessedAt: m.last_accessed_at, matchedBy }, weights, t);
      return { memory: m, score: breakdown.final, breakdown, rank: 0 };
    })
    .sort((a, b) => b.score - a.score || (a.memory.id < b.memory.id ? -1 : a.memory.id > b.memory.id ? 1 : 0));
  candidates.forEach((c, i) => (c.rank = i + 1));
  return {
    as_of: at,
    embedding_model: model.model,
    embedding_kind: provider.kind,
    weights,
    candidates,
    not_candidates: pool.filter((m) => !matched.has(m.id)),
  };
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
