import "server-only";
import type { z } from "zod";
import type { ProjectSql } from "../db/project-sql";
import type { RankedAsOf } from "../memories/as-of";
import type { ProfileSettings } from "../profiles/schemas";
import type { ReplayTurn } from "./load-turn";
import type { Why, ZReplayResult } from "./schemas";

type Logged = NonNullable<z.infer<typeof ZReplayResult>["logged"]>;

// A retrieval logged "around" a turn: logged for its conversation after the thread's
// previous turn and at most AFTER_TURN_MS after the turn itself (an agent retrieves, then
// the turn is written; a client that writes the question first retrieves just after).
// The one with the turn's query wins, then the nearest in time.
const AFTER_TURN_MS = 10 * 60_000;

export async function findLoggedRetrieval(sql: ProjectSql, turn: ReplayTurn): Promise<Omit<Logged, "differences"> | null> {
  const upper = new Date(Date.parse(turn.createdAt) + AFTER_TURN_MS).toISOString();
  const [r] = await sql.query<{ id: string; created_at: Date | string; query: string; embedding_model: string; k: number; weights: Record<string, number>; dry_run: boolean }>(
    `SELECT id, created_at, query, embedding_model, k, weights, dry_run FROM memory_retrievals
      WHERE project_id = $1 AND conversation_id = $2 AND created_at <= $3::timestamptz AND ($4::timestamptz IS NULL OR created_at > $4::timestamptz)
      ORDER BY (query = $5) DESC, abs(extract(epoch FROM created_at - $6::timestamptz)), id
      LIMIT 1`,
    [sql.projectId, turn.conversationId, upper, turn.leafCreatedAt, turn.query, turn.createdAt],
  );
  if (!r) return null;
  const hits = await sql.query<{ memory_id: string; rank: number; score: number; cosine: number; time_decay: number; importance: number }>(
    `SELECT memory_id, rank, score, cosine, time_decay, importance FROM memory_retrieval_hits WHERE retrieval_id = $1 AND project_id = $2 ORDER BY rank`,
    [r.id, sql.projectId],
  );
  return {
    retrieval_id: r.id,
    created_at: new Date(r.created_at).toISOString(),
    query: r.query,
    embedding_model: r.embedding_model,
    k: Number(r.k),
    weights: r.weights,
    dry_run: r.dry_run,
    hits: hits.map((h) => ({ ...h, rank: Number(h.rank), score: Number(h.score), cosine: Number(h.cosine), time_decay: Number(h.time_decay), importance: Number(h.importance) })),
  };
}

const f = (n: number) => n.toFixed(4);

/**
 * Each memory ranked differently by the log and by the replay (in one and not the other, or
 * at another rank), with the likeliest cause: another query, k, weights or embedding model,
 * a memory the log could not know (created after it) or that the replay could not see, or
 * score parts that moved (accesses, edits) between the logged instant and the replayed one.
 */
export function explainDifferences(
  logged: Omit<Logged, "differences">,
  replay: { ranking: RankedAsOf | null; settings: ProfileSettings; query: string; top: string[]; why: Map<string, Why> },
): Logged["differences"] {
  const loggedRank = new Map(logged.hits.map((h) => [h.memory_id, h.rank]));
  const replayRank = new Map(replay.top.map((id, i) => [id, i + 1]));
  const ids = [...new Set([...logged.hits.map((h) => h.memory_id), ...replay.top])];
  const settingCauses: string[] = [];
  if (logged.query !== replay.query) settingCauses.push(`the log's query was "${logged.query}"`);
  if (logged.k !== replay.settings.memory.k) settingCauses.push(`k ${logged.k} logged, ${replay.settings.memory.k} replayed`);
  const w = replay.ranking?.weights;
  if (w && (["similarity", "recency", "importance"] as const).some((x) => Math.abs((logged.weights[x] ?? NaN) - w[x]) > 1e-12)) {
    settingCauses.push(`weights ${JSON.stringify(logged.weights)} logged, ${JSON.stringify(w)} replayed`);
  }
  if (replay.ranking && logged.embedding_model !== replay.ranking.embedding_model) {
    settingCauses.push(`embedding model ${logged.embedding_model} logged, ${replay.ranking.embedding_model} replayed`);
  }
  const out: Logged["differences"] = [];
  for (const id of ids) {
    const lr = loggedRank.get(id) ?? null;
    const rr = replayRank.get(id) ?? null;
    if (lr === rr) continue;
    const why = replay.why.get(id);
    const hit = logged.hits.find((h) => h.memory_id === id);
    const causes = [...settingCauses];
    const created = replay.ranking?.candidates.find((c) => c.memory.id === id)?.memory.created_at;
    if (lr === null && created && new Date(created).toISOString() > logged.created_at) causes.push(`a memory unknown to the log: created ${new Date(created).toISOString()}, after the logged retrieval`);
    if (lr !== null && rr === null && why && why.rule !== "k" && why.rule !== "included") causes.push(`not retrievable in the replay: ${why.reason}`);
    if (hit && why?.score_parts) {
      const p = why.score_parts;
      if (Math.abs(hit.score - p.final) > 1e-9) {
        causes.push(
          `score ${f(hit.score)} logged (cosine ${f(hit.cosine)}, decay ${f(hit.time_decay)}, importance ${f(hit.importance)}), ${f(p.final)} replayed (cosine ${f(p.cosine)}, decay ${f(p.time_decay)}, importance ${f(p.importance)})`,
        );
      }
    }
    if (lr === null && why?.state && !hit) causes.push(`not in the log's top ${logged.k}${why.score !== null ? ` (replayed score ${f(why.score)})` : ""}`);
    out.push({ memory_id: id, logged_rank: lr, replayed_rank: rr, explanation: causes.length ? causes.join("; ") : "ranked alike by score; the ranks of others moved" });
  }
  return out;
}
