// Pure helpers of the replay page: the request a URL state asks for, the words for each rule
// and change, and what changed from one turn to the next (the scrubber's highlights).
import type { ChangeKind, ReplayBody, ReplayResult, ReplayVariant, WhyRule } from "../api-types";
import { defaultDraft, diffMessages, toStrategy, type DiffMark } from "./inspect-model";
import { variantLabel, type VariantSpec } from "./replay-url";

export function toVariant(v: VariantSpec): ReplayVariant {
  const memory = {
    ...(v.k !== undefined ? { k: v.k } : {}),
    ...(v.min_score !== undefined ? { min_score: v.min_score } : {}),
    ...(v.weights ? { weights: v.weights } : {}),
  };
  const overrides = {
    ...(Object.keys(memory).length ? { memory } : {}),
    // A strategy of another type starts from that type's defaults (the inspector's).
    ...(v.strategy ? { strategy: toStrategy(defaultDraft(v.strategy)) } : {}),
  };
  return {
    label: variantLabel(v),
    ...(v.profile_version !== undefined ? { profile_version: v.profile_version } : {}),
    ...(Object.keys(overrides).length ? { overrides } : {}),
  };
}

/** The POST /replay body of a turn: the memory asked about is explained even when nothing ranked it. */
export function replayBody(conversation: string, turn: string, opts: { memory?: string | null; variant?: VariantSpec | null } = {}): ReplayBody {
  return {
    conversation_id: conversation,
    message_id: turn,
    ...(opts.memory ? { explain: [opts.memory] } : {}),
    ...(opts.variant ? { variants: [toVariant(opts.variant)] } : {}),
  };
}

/** Each rule in a few words (the badge); the API's `reason` gives the numbers. */
export const RULE_LABEL: Record<WhyRule, string> = {
  included: "in the prompt",
  token_budget: "cut by the token budget",
  k: "cut by k",
  min_score: "under the minimum score",
  not_a_candidate: "not a candidate",
  status: "not active then",
  type_filter: "filtered by type",
  memory_disabled: "memory off in the profile",
  created_after_turn: "created after this turn",
  deleted_before_turn: "deleted before this turn",
  other_user: "another user's memory",
  unknown_memory: "unknown memory",
};

export const CHANGE_LABEL: Record<ChangeKind, string> = {
  created_later: "created later",
  edited_since: "edited since",
  archived_since: "archived since",
  restored_since: "restored since",
  deleted_since: "deleted since",
};

export type StepDiff = {
  /** For each message of the current prompt: also in the previous turn's prompt, or new. */
  marks: DiffMark[];
  newMessages: number;
  goneMessages: number;
  /** Memories in this turn's prompt that were not in the previous one's, and the reverse. */
  memoriesIn: string[];
  memoriesOut: string[];
  tokenDelta: number;
};

const included = (r: Pick<ReplayResult, "context">) => r.context.memories.filter((m) => m.included).map((m) => m.id);

/** What the prompt of `cur` changed from the one of the turn before it. */
export function stepDiff(prev: Pick<ReplayResult, "context">, cur: Pick<ReplayResult, "context">): StepDiff {
  const d = diffMessages(prev.context.messages, cur.context.messages);
  const before = new Set(included(prev));
  const now = new Set(included(cur));
  return {
    marks: d.b,
    newMessages: d.onlyB,
    goneMessages: d.onlyA,
    memoriesIn: [...now].filter((id) => !before.has(id)),
    memoriesOut: [...before].filter((id) => !now.has(id)),
    tokenDelta: cur.context.sections.total - prev.context.sections.total,
  };
}

/**
 * Marks for the messages one side sends and the other does not, and none for the shared ones:
 * a shared message drawn faded (the inspector's compare) would lose its text's contrast.
 */
export const onlyMarks = (marks: readonly DiffMark[] | undefined) => marks?.map((m) => (m === "only" ? m : undefined));
