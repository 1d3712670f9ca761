import "server-only";
import type { z } from "zod";
import type { ProjectSql } from "../db/project-sql";
import type { RankedAsOf } from "../memories/as-of";
import type { ProfileSettings } from "../profiles/schemas";
import type { Why, ZReplayResult } from "./schemas";

type Logged = NonNullable<z.infer<typeof ZReplayResult>["logged"]>;

// The retrieval logged around a turn is read with the turn (lib/replay/load-turn.ts); here,
// how its ranking and the replay's differ.

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
