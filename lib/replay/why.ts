import "server-only";
import type { ContextResult } from "../context/schemas";
import type { ProjectSql } from "../db/project-sql";
import { exactAsOf, type RankedAsOf, type RebuiltMemory } from "../memories/as-of";
import type { ProfileSettings } from "../profiles/schemas";
import type { Why } from "./schemas";

// Why a memory was in a replayed prompt or not: the first rule, in the order the assembly
// applies them, that kept it out. A memory a search ranked: min_score, then k, then the
// token budget. One it did not rank: it did not exist yet, was deleted, is another user's,
// was of another status or type, or was simply not near enough to be a candidate.

type State = NonNullable<Why["state"]>;

function stateOf(m: {
  memory_type: State["memory_type"];
  status: State["status"];
  content: string;
  importance_score: number;
  access_count: number;
  last_accessed_at: string | null;
  version: number;
  reconstructed: boolean;
  reason: string | null;
}): State {
  return {
    memory_type: m.memory_type,
    status: m.status,
    content: m.content,
    importance_score: m.importance_score,
    access_count: m.access_count,
    last_accessed_at: m.last_accessed_at,
    version: m.version,
    reconstructed: m.reconstructed,
    reconstruction_note: m.reason,
  };
}

export type ReplayedRetrieval = { ranking: RankedAsOf | null; settings: ProfileSettings; context: ContextResult; userId: string; at: string };

/** The rank (1-based) of each ranked candidate in the list k cuts: after min_score. */
function passingRanks(r: ReplayedRetrieval): Map<string, number> {
  const min = r.settings.memory.min_score;
  const passing = (r.ranking?.candidates ?? []).filter((c) => min === undefined || c.score >= min);
  return new Map(passing.map((c, i) => [c.memory.id, i + 1]));
}

/** Why in / why out for each id (in the order given, without repeats). */
export async function explainMemories(sql: ProjectSql, r: ReplayedRetrieval, ids: string[]): Promise<Why[]> {
  const candidates = new Map((r.ranking?.candidates ?? []).map((c) => [c.memory.id, c]));
  const passing = passingRanks(r);
  const inPrompt = new Map(r.context.memories.map((m) => [m.id, m.included]));
  const { k, min_score, memory_types } = r.settings.memory;
  const unique = [...new Set(ids)];
  // The memories the search did not rank, all read at once (a scrubber step explains the
  // logged hits too): their state then, and for those not alive then, when they first existed.
  const unranked = unique.filter((id) => !candidates.has(id));
  const then = new Map((await exactAsOf(sql, unranked, r.at)).map((m) => [m.id, m]));
  const seen = await firstSeen(sql, unranked.filter((id) => !then.has(id)));
  const out: Why[] = [];
  for (const id of unique) {
    const c = candidates.get(id);
    if (c) {
      const base = { memory_id: id, rank: c.rank, score: c.score, score_parts: c.breakdown, state: stateOf(c.memory) };
      const p = passing.get(id);
      if (p === undefined) {
        out.push({ ...base, in_prompt: false, rule: "min_score", reason: `score ${c.score.toFixed(4)} is under min_score ${min_score}` });
      } else if (p > k) {
        out.push({ ...base, in_prompt: false, rule: "k", reason: `rank ${p}${p !== c.rank ? ` (${c.rank} before min_score)` : ""} is past k = ${k}` });
      } else if (inPrompt.get(id) === false) {
        out.push({ ...base, in_prompt: false, rule: "token_budget", reason: `retrieved at rank ${p}, then left out to fit the context window (lowest-scoring memory first)` });
      } else {
        out.push({ ...base, in_prompt: true, rule: "included", reason: `rank ${p} of k = ${k}` });
      }
      continue;
    }
    out.push(explainUnranked(r, id, memory_types, then.get(id) ?? null, seen.get(id) ?? null));
  }
  return out;
}

type Seen = { first: Date | string | null; user_id: string | null };

/** For memories not alive at the instant: the first time each existed (row or event), and its user when the row is still there. */
async function firstSeen(sql: ProjectSql, ids: string[]): Promise<Map<string, Seen>> {
  if (!ids.length) return new Map();
  const rows = await sql.query<Seen & { id: string }>(
    `SELECT x.id,
            least((SELECT created_at FROM memories WHERE id = x.id AND project_id = $2),
                  (SELECT min(created_at) FROM memory_events WHERE memory_id = x.id AND project_id = $2)) AS first,
            (SELECT user_id FROM memories WHERE id = x.id AND project_id = $2) AS user_id
       FROM unnest($1::uuid[]) AS x(id)`,
    [ids, sql.projectId],
  );
  return new Map(rows.map((s) => [s.id, s]));
}

function explainUnranked(r: ReplayedRetrieval, id: string, types: string[] | undefined, then: RebuiltMemory | null, seen: Seen | null): Why {
  const none = { memory_id: id, in_prompt: false, rank: null, score: null, score_parts: null };
  if (then && then.user_id !== r.userId) return { ...none, state: null, rule: "other_user", reason: `a memory of another user (${then.user_id})` };
  if (then) {
    const state = stateOf(then);
    if (!r.settings.memory.enabled) return { ...none, state, rule: "memory_disabled", reason: "the profile retrieves no memories (memory.enabled false)" };
    if (then.status !== "active") return { ...none, state, rule: "status", reason: `it was ${then.status} then; a prompt retrieves active memories only` };
    if (types && !types.includes(then.memory_type)) return { ...none, state, rule: "type_filter", reason: `a ${then.memory_type}; memory_types was ${types.join(", ")}` };
    // In the pool the search ranked (alive then, of its status and types), yet no candidate.
    const pool = r.ranking;
    const aliveCandidatePool = !!pool && then.status === pool.status && (!pool.memory_types || pool.memory_types.includes(then.memory_type));
    return {
      ...none,
      state,
      rule: "not_a_candidate",
      reason: aliveCandidatePool
        ? "neither among the nearest by cosine (max(50, 5k)) nor a full-text match of the query"
        : "not among the memories the search considered",
    };
  }
  // Not alive then: did it exist later, earlier, or never (as far as this project can see)?
  if (!seen?.first) return { ...none, state: null, rule: "unknown_memory", reason: "no memory of this project has this id" };
  if (seen.user_id !== null && seen.user_id !== r.userId) return { ...none, state: null, rule: "other_user", reason: `a memory of another user (${seen.user_id})` };
  const first = new Date(seen.first).toISOString();
  if (first > r.at) return { ...none, state: null, rule: "created_after_turn", reason: `created ${first}, after this turn (${r.at})` };
  return { ...none, state: null, rule: "deleted_before_turn", reason: `it no longer existed at ${r.at} (deleted before)` };
}
