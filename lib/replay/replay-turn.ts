import "server-only";
import { assembleContext, type ContextDeps } from "../context/assemble-context";
import type { ContextInput, ContextResult } from "../context/schemas";
import type { ProjectSql } from "../db/project-sql";
import { ValidationError } from "../errors/domain-errors";
import { rankMemoriesAsOf, type RankedAsOf } from "../memories/as-of";
import type { ProfileSettings } from "../profiles/schemas";
import { loadReplayTurn, type ReplayTurn } from "./load-turn";
import { explainDifferences } from "./logged-retrieval";
import { changesSince } from "./changes-since";
import { replayDiff } from "./replay-diff";
import { applyOverrides, baseSettings, settingsOf, type ProfileUsed } from "./replay-settings";
import type { ReplayInput, ReplayResult, Why } from "./schemas";
import { explainMemories } from "./why";

// POST /api/v1/replay: a past turn assembled exactly as POST /context would have answered
// at its instant. The assembly is assembleContext itself; only its memory retrieval (the
// memories and scores as of the instant, lib/memories/as-of) and, for a thread's first
// turn, its history are injected. Nothing is logged and nothing is marked accessed.

/** Ranked memories explained besides the retrieved ones: the next few that k or min_score cut. */
const EXPLAIN_PAST_K = 10;

type Replayed = Omit<ReplayResult["variants"][number], "label" | "diff"> & { ranking: RankedAsOf | null; included: string[] };

async function replayUnder(
  sql: ProjectSql,
  turn: ReplayTurn,
  userId: string,
  at: string,
  settings: ProfileSettings,
  profile: ProfileUsed,
  extraIds: string[],
  /** The model of then and the counts read with the turn, when this replay searches at the turn's own instant for its end user. */
  known: ReplayTurn["searchAtTurn"],
): Promise<Replayed> {
  const request: ContextInput = {
    user_id: userId,
    conversation_id: turn.conversationId,
    ...(turn.leafId ? { leaf_message_id: turn.leafId } : {}),
    query: turn.query,
    system_prompt: settings.system_prompt,
    model: settings.model,
    reserved_output_tokens: settings.reserved_output_tokens,
    strategy: settings.strategy,
    memory: { ...settings.memory, dry_run: true },
  };
  let ranking: RankedAsOf | null = null;
  const deps: ContextDeps = {
    // The search as it would have run at `at`: k and min_score cut the ranking as the live search does.
    retrieve: async (tx, uid, search) => {
      ranking = await rankMemoriesAsOf(tx, {
        userId: uid,
        asOf: at,
        ...(known && known.userId === uid ? { known: { model: known.model, counts: known.counts } } : {}),
        input: { query: search.query, k: search.k, memory_types: search.memory_types, weights: search.weights, min_score: search.min_score, status: search.status },
      });
      const top = ranking.candidates.filter((c) => search.min_score === undefined || c.score >= search.min_score).slice(0, search.k);
      return {
        memories: top.map((c) => ({ id: c.memory.id, memory_type: c.memory.memory_type, content: c.memory.content, score: c.score })),
        retrieval_id: null,
        access_recorded: false,
      };
    },
    // A thread's first turn had no history; /context without a leaf would read the newest thread.
    ...(turn.leafId ? {} : { history: async () => [] }),
    // Read with the turn: the conversation is this user's (replayTurn checked it) and the
    // leaf's position is known, so the assembly reads neither again.
    conversationChecked: true,
    // The saved presets were read with the turn too; used on the same condition (a replay at the turn's own instant).
    ...(known ? { presets: turn.presets } : {}),
    ...(turn.leafAnchor ? { leafAnchor: turn.leafAnchor } : {}),
  };
  // A replay is a read: the offloads its strategy makes are shown by ref, never stored (a POST
  // /context stores them; a replay must leave the database as it found it).
  const context: ContextResult = await assembleContext(sql, request, { recordAccess: false }, { ...deps, storeOffloads: false });
  const r = ranking as RankedAsOf | null;
  const ids = [...context.memories.map((m) => m.id), ...(r?.candidates.slice(0, settings.memory.k + EXPLAIN_PAST_K).map((c) => c.memory.id) ?? []), ...extraIds];
  const why = await explainMemories(sql, { ranking: r, settings, context, userId, at }, ids);
  return {
    profile,
    settings,
    request,
    context,
    retrieval: r
      ? { embedding_model: r.embedding_model, weights: r.weights, candidate_count: r.candidates.length, reconstructed: r.candidates.every((c) => c.memory.reconstructed) }
      : null,
    why,
    ranking: r,
    included: context.memories.filter((m) => m.included).map((m) => m.id),
  };
}

export async function replayTurn(sql: ProjectSql, input: ReplayInput): Promise<ReplayResult> {
  const turn = await loadReplayTurn(sql, input.conversation_id, input.message_id);
  const userId = input.user_id ?? turn.endUserId;
  if (!userId) {
    throw new ValidationError(`Conversation ${turn.conversationId} has no end user: say whose memories to use`, [{ field: "user_id", message: "required: the conversation has no end user" }]);
  }
  if (input.user_id && turn.endUserId && input.user_id !== turn.endUserId) {
    throw new ValidationError(`Conversation ${turn.conversationId} belongs to end user ${turn.endUserId}, not ${input.user_id}`, [
      { field: "user_id", message: `belongs to end user ${turn.endUserId}` },
    ]);
  }
  const at = new Date(input.as_of ?? turn.createdAt).toISOString();
  // The logged retrieval and the profile in force at the turn were read with the turn (one statement).
  const logged = turn.logged;
  const loggedIds = logged?.hits.map((h) => h.memory_id) ?? [];
  const explain = [...(input.explain ?? []), ...loggedIds];

  const base =
    input.profile_version === undefined && input.as_of === undefined
      ? settingsOf(turn.appId, turn.profileAtTurn)
      : await baseSettings(sql, turn.appId, new Date(at), input.profile_version);
  const own = applyOverrides(base.settings, input.overrides);
  // Read with the turn for its instant: only a replay at that instant (no as_of) uses them.
  const known = input.as_of === undefined ? turn.searchAtTurn : null;
  const original = await replayUnder(sql, turn, userId, at, own.settings, { ...base.profile, overridden: own.overridden }, explain, known);

  const variants: ReplayResult["variants"] = [];
  for (const [i, v] of (input.variants ?? []).entries()) {
    const start = v.profile_version !== undefined ? await baseSettings(sql, turn.appId, new Date(at), v.profile_version) : { settings: own.settings, profile: original.profile };
    const changed = applyOverrides(start.settings, v.overrides);
    const profile = { ...start.profile, overridden: [...(v.profile_version !== undefined ? [] : original.profile.overridden), ...changed.overridden] };
    // Both sides explain the memories either side ranked, so "in" and "out" carry both ranks.
    const r = await replayUnder(sql, turn, userId, at, changed.settings, profile, [...explain, ...original.included], known);
    const back = await explainMemories(sql, { ranking: original.ranking, settings: original.settings, context: original.context, userId, at }, r.included);
    const { ranking: _r, included: _i, ...shown } = r;
    variants.push({
      label: v.label ?? `variant ${i + 1}`,
      ...shown,
      diff: replayDiff({ context: original.context, why: [...original.why, ...back], included: original.included }, { context: r.context, why: r.why, included: r.included }),
    });
  }

  const { ranking, included: _inc, ...shown } = original;
  const whyById = new Map<string, Why>(original.why.map((w) => [w.memory_id, w]));
  return {
    conversation_id: turn.conversationId,
    app_id: turn.appId,
    user_id: userId,
    as_of: at,
    turn: { message_id: turn.messageId, created_at: turn.createdAt, query: turn.query, index: turn.index, history_leaf_message_id: turn.leafId },
    ...shown,
    logged: logged
      ? { ...logged, differences: explainDifferences(logged, { ranking, settings: original.settings, query: turn.query, top: original.context.memories.map((m) => m.id), why: whyById }) }
      : null,
    variants,
    changes_since: await changesSince(sql, userId, at, original.why.map((w) => w.memory_id)),
  };
}
