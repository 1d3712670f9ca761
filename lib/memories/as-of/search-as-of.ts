import "server-only";
import type { ProjectSql } from "../../db/project-sql";
import { cachedVectors } from "../../embeddings/embedding-cache";
import { activeModelAt, providerOfModel } from "../../embeddings/model-at";
import { lexicalTokens } from "../../embeddings/lexical-embedder";
import { scoreMemory } from "../score-memory";
import { DEFAULT_WEIGHTS, type Breakdown, type MemoryAsOf, type SearchInput, type SearchResult, type Weights } from "../schemas";
import { probeUserFast } from "./history-probe";
import { asOfInstant, exactAsOf, withRelationsAsOf } from "./list-as-of";
import { fastStateAt } from "./rebuild-state";
import { stateCtes } from "./state-sql";
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

type PoolRow = { kind: "v" | "r" | "t"; id: string; content: string | null; cosine: number | string | null };

/**
 * Every memory a search at T would have considered, scored and ranked as then. The replay
 * builds "why in / why out" on this: a memory's rank, its score parts, or that it was no
 * candidate, is not of the searched status or type, or did not exist yet.
 *
 * The pool (the user's memories alive at T of the searched status and types) stays in the
 * database (state-sql.ts); one statement answers the nearest by stored vector among those
 * whose content is still the same, those whose content of then has no stored vector (changed
 * since, deleted since, or not embedded with that model), and the full-text matches. Only the
 * candidates are rebuilt in JavaScript.
 */
export async function rankMemoriesAsOf(sql: ProjectSql, o: { userId: string; asOf: string | Date; input: AsOfSearchInput }): Promise<RankedAsOf> {
  const at = asOfInstant(o.asOf);
  const t = new Date(at).getTime();
  const model = await activeModelAt(sql, at);
  const provider = providerOfModel(model);
  const d = model.dimensions;
  const weights: Weights = { ...DEFAULT_WEIGHTS, ...o.input.weights };
  const status = o.input.status ?? "active";
  const types = o.input.memory_types ?? null;
  const vectorN = Math.max(50, o.input.k * 5);
  const query = o.input.query;
  const words = queryWords(query);
  const qv = (await cachedVectors(sql, provider, [query], o.userId)).get(query)!;
  const emb = (id: string) => `memory_embeddings e WHERE e.project_id = $1 AND e.memory_id = ${id} AND e.model = $6`;
  const cosine = `1 - (e.embedding::vector(${d}) <=> $7::vector(${d}))`;
  const text = words.length
    ? `UNION ALL
       (SELECT 't', p.id, NULL, CASE WHEN p.same_content THEN (SELECT ${cosine} FROM ${emb("p.id")}) END
          FROM pool p LEFT JOIN memories m ON m.project_id = $1 AND m.id = p.id AND p.same_content
         WHERE COALESCE(m.search_tsv, to_tsvector('simple', p.content)) @@ to_tsquery('simple', $9)
         ORDER BY ts_rank(COALESCE(m.search_tsv, to_tsvector('simple', p.content)), to_tsquery('simple', $9)) DESC, p.id
         LIMIT ${TEXT_CANDIDATES})`
    : "";
  // v: the nearest by stored vector; r: to embed (content of then); t: full-text matches.
  // search_tsv is to_tsvector('simple', content): the stored one serves an unchanged content.
  const rows = await sql.query<PoolRow>(
    `WITH ${stateCtes({ content: true })},
     pool AS MATERIALIZED (
       SELECT s.id, s.content, s.same_content FROM state s
        WHERE s.status = $4 AND ($5::text[] IS NULL OR s.memory_type = ANY($5::text[]))
     )
     (SELECT 'v' AS kind, p.id, NULL AS content, ${cosine} AS cosine
        FROM pool p JOIN memory_embeddings e ON e.project_id = $1 AND e.memory_id = p.id AND e.model = $6
       WHERE p.same_content
       ORDER BY 4 DESC, p.id LIMIT $8)
     UNION ALL
     (SELECT 'r', p.id, p.content, NULL FROM pool p WHERE NOT p.same_content OR NOT EXISTS (SELECT 1 FROM ${emb("p.id")}))
     ${text}`,
    [sql.projectId, o.userId, at, status, types, model.model, qv, vectorN, ...(words.length ? [words.join(" | ")] : [])],
  );
  const cosines = new Map<string, number>();
  for (const r of rows) if (r.cosine !== null) cosines.set(r.id, Number(r.cosine));
  // Contents of then without a stored vector: embedded through the cache, scored in SQL.
  const rest = rows.filter((r) => r.kind === "r");
  if (rest.length) {
    const vectors = await cachedVectors(sql, provider, rest.map((r) => r.content!), o.userId);
    const scored = await sql.query<{ id: string; cosine: number }>(
      `SELECT x.id, 1 - (x.v::vector(${d}) <=> $1::vector(${d})) AS cosine FROM unnest($2::uuid[], $3::text[]) AS x(id, v)`,
      [qv, rest.map((r) => r.id), rest.map((r) => vectors.get(r.content!)!)],
    );
    for (const r of scored) cosines.set(r.id, Number(r.cosine));
  }
  const vector = rows
    .filter((r) => r.kind !== "t")
    .map((r) => r.id)
    .sort((a, b) => cosines.get(b)! - cosines.get(a)! || (a < b ? -1 : a > b ? 1 : 0))
    .slice(0, vectorN);
  const textIds = rows.filter((r) => r.kind === "t").map((r) => r.id);
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
    .sort((a, b) => b.score - a.score || (a.memory.id < b.memory.id ? -1 : a.memory.id > b.memory.id ? 1 : 0));
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
