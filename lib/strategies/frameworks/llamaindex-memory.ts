import { countTextTokens } from "../../tokens/count-tokens";
import type { RoleMessage } from "../schemas";
import type { Dropped, StrategyOutput, Transformed } from "../strategy-types";
import { uncachedCounter, type TextCounter } from "../text-counts";
import { endsJoinable, JoinedTexts } from "./joined-texts";
import { frameworkRefuses, unpairedNotes } from "./unpaired";

// LlamaIndex TS (llamaindex 0.12 / @llamaindex/core 0.6.22, memory/): ChatMemoryBuffer.getMessages
// and Memory.getLLM without memory blocks. Both count a list of messages as ONE text, the
// messages' texts joined with a space, with Settings.tokenizer: cl100k_base whatever the model.

export const LLAMAINDEX_ENCODING = "cl100k_base" as const;
const DEFAULT_TOKEN_LIMIT_RATIO = 0.75;

// js-tiktoken (LlamaIndex's tokenizer) throws on text holding a special token; LlamaIndex does not catch it.
const SPECIAL = ["<|endoftext|>", "<|fim_prefix|>", "<|fim_middle|>", "<|fim_suffix|>", "<|endofprompt|>"];

/** extractText: a string as is; of a list, the text parts joined with a blank line. */
export function llamaText(m: RoleMessage): string {
  return typeof m.content === "string" ? m.content : m.content.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("\n\n");
}

/** Throws LlamaIndex's failure when one of these texts (all of which it tokenizes) holds a special token. */
function checkSpecial(list: string[], field: string): void {
  // Every special token starts with "<|": one search per text for the usual text without it.
  const bad = list.find((t) => t.includes("<|") && SPECIAL.some((s) => t.includes(s)));
  if (bad !== undefined) {
    const token = SPECIAL.find((s) => bad.includes(s));
    throw frameworkRefuses(field, `LlamaIndex's tokenizer (js-tiktoken, cl100k_base) throws on a text holding the special token ${token}; the framework does not catch it`);
  }
}

function texts(list: RoleMessage[], field: string): string[] {
  const out = list.map(llamaText);
  checkSpecial(out, field);
  return out;
}

export type LlamaBufferOptions = { token_limit?: number; initial_token_count: number; context_window?: number };

/** ChatMemoryBuffer's token limit: token_limit, else 0.75 of the context window. */
export function llamaBufferTokenLimit(opts: LlamaBufferOptions, ctx: { contextWindow: number }): number {
  return opts.token_limit ?? Math.ceil((opts.context_window ?? ctx.contextWindow) * DEFAULT_TOKEN_LIMIT_RATIO);
}

/**
 * ChatMemoryBuffer.getMessages(transientMessages, initialTokenCount): the call's messages go in
 * FRONT of the history; while over the limit and more than one message is left, the window
 * loses its oldest message, and one more when the new first message is an assistant's (only
 * that one is checked). The last message stays even alone over the limit, unless it is an
 * assistant's: then nothing is sent.
 */
export function llamaindexBufferStrategy(
  history: RoleMessage[],
  opts: LlamaBufferOptions,
  ctx: { contextWindow: number },
  temporary: RoleMessage[] = [],
  counter: TextCounter = uncachedCounter,
): StrategyOutput {
  const contextWindow = opts.context_window ?? ctx.contextWindow;
  const tokenLimit = llamaBufferTokenLimit(opts, ctx);
  if (opts.initial_token_count > tokenLimit) {
    throw frameworkRefuses("strategy.initial_token_count", `LlamaIndex's ChatMemoryBuffer throws "Initial token count exceeds token limit" (${opts.initial_token_count} > ${tokenLimit})`);
  }
  const all = [...temporary, ...history];
  const source = [...temporary.map(() => -1), ...history.map((_, i) => i)];
  const suffixTokens = suffixCounter(texts(all, "messages"), counter, tokenLimit - opts.initial_token_count);
  let count = all.length;
  let tokens = suffixTokens(0) + opts.initial_token_count;
  const doubled = new Set<number>();
  while (tokens > tokenLimit && count > 1) {
    count -= 1;
    if (all.at(-count)!.role === "assistant") {
      doubled.add(all.length - count);
      count -= 1;
    }
    // slice(-0) is the whole list: LlamaIndex then counts every message again.
    tokens = suffixTokens(count === 0 ? 0 : all.length - count) + opts.initial_token_count;
  }
  const start = tokens > tokenLimit && count <= 0 ? all.length : count === 0 ? 0 : all.length - count;
  const kept = all.slice(start);
  const keptSource = source.slice(start);
  const limit = `token_limit ${tokenLimit}${opts.token_limit === undefined ? ` (ceil(0.75 × context_window ${contextWindow}))` : ""}`;
  const dropped: Dropped[] = [];
  source.slice(0, start).forEach((index, i) => {
    const reason =
      start === all.length && i === all.length - 1
        ? `LlamaIndex sends nothing: this last message alone is over ${limit} and is an assistant's`
        : doubled.has(i)
          ? `LlamaIndex drops an assistant message that would start the window, with the one before it (over ${limit})`
          : `oldest, over ${limit}`;
    dropped.push({ index, reason: index < 0 ? `temporary message ${i + 1} (LlamaIndex puts it before the history): ${reason}` : reason });
  });
  const transformed: Transformed[] = [];
  temporary.forEach((_, i) => {
    if (start <= i) transformed.push({ index: -1, action: "temporary_appended", reason: `temporary message ${i + 1} of ${temporary.length}: LlamaIndex puts the call's messages BEFORE the history` });
  });
  if (kept.length === 1 && tokens > tokenLimit) {
    transformed.push({ index: keptSource[0], action: "kept_unpaired", reason: `LlamaIndex kept this last message although alone it is over ${limit}` });
  }
  transformed.push(...unpairedNotes(history, kept, keptSource, "LlamaIndex"));
  return { messages: kept, sourceIndex: keptSource, dropped, transformed };
}

export type LlamaMemoryOptions = { token_limit: number; short_term_token_limit_ratio: number; context_window?: number | null };

/**
 * Memory.getLLM(llm, transientMessages) with no memory blocks: the limit is 0.75 of the LLM's
 * context window when one is known (token_limit only without), less the call's messages; the
 * short-term share of that is filled newest first, each step counting the call's messages again.
 * The call's messages go last.
 */
export function llamaindexMemoryStrategy(history: RoleMessage[], opts: LlamaMemoryOptions, temporary: RoleMessage[] = [], counter: TextCounter = uncachedCounter): StrategyOutput {
  const tokenLimit = opts.context_window ? Math.ceil(opts.context_window * DEFAULT_TOKEN_LIMIT_RATIO) : opts.token_limit;
  const tempText = texts(temporary, "temporary_messages");
  const tempTokens = temporary.length ? countTextTokens(tempText.join(" "), LLAMAINDEX_ENCODING) : 0;
  const remaining = tokenLimit - tempTokens;
  if (remaining < 0) {
    throw frameworkRefuses("temporary_messages", `LlamaIndex's Memory.getLLM throws "Could not fit fixed blocks and transient messages within memory context" (the call's messages hold ${tempTokens} tokens, the limit is ${tokenLimit})`);
  }
  const shortTerm = Math.ceil(remaining * opts.short_term_token_limit_ratio);
  const newestFirst = [...history].reverse();
  const newestTexts = newestFirst.map(llamaText);
  const taken = takenNewestFirst(newestTexts, shortTerm, tempTokens, counter) ?? takenByJoinedScan(newestTexts, shortTerm, tempTokens);
  const start = history.length - taken;
  const limitWhy = opts.context_window ? `0.75 × context_window ${opts.context_window} = ${tokenLimit}` : `token_limit ${tokenLimit}`;
  const dropped: Dropped[] = history.slice(0, start).map((_, index) => ({
    index,
    reason: `older than what fits the short-term share ${shortTerm} (ceil(${opts.short_term_token_limit_ratio} × (${limitWhy} − ${tempTokens} for the call's messages)); each step counts the call's messages again)`,
  }));
  const kept = [...history.slice(start), ...temporary];
  const sourceIndex = [...history.slice(start).map((_, i) => start + i), ...temporary.map(() => -1)];
  const transformed: Transformed[] = temporary.map((_, i) => ({
    index: -1,
    action: "temporary_appended" as const,
    reason: `temporary message ${i + 1} of ${temporary.length}: used once, not stored; counted twice against the limit`,
  }));
  transformed.push(...unpairedNotes(history, kept, sourceIndex, "LlamaIndex"));
  return { messages: kept, sourceIndex, dropped, transformed };
}

/**
 * Tokens of texts[from..].join(" ") for every `from`, as ChatMemoryBuffer counts its ever
 * shorter windows; a window the loop only compares with the limit, so one known to hold more
 * than `budget` tokens is Infinity. When every text but the last ends in a non-space character,
 * the joined string's pieces are each text's own (the first alone, the others with the space
 * before them; JoinedTexts' note says why), so a suffix is a sum of per-text counts. Those are
 * taken newest first, and only until the texts after some `k` hold more than `budget`: every
 * longer window holds at least those, so the older texts are never counted (a 2 000-token
 * limit over a 1 000-message thread counts a few dozen texts, not all). Each text is counted
 * once, and kept across requests by `counter`. Otherwise one scan of the joined string.
 */
function suffixCounter(list: string[], counter: TextCounter, budget: number): (from: number) => number {
  if (!list.slice(0, -1).every(endsJoinable)) {
    const joined = new JoinedTexts(list, LLAMAINDEX_ENCODING);
    return (from) => joined.suffix(from);
  }
  const alone: number[] = new Array<number>(list.length);
  // spacedFrom[i - k]: tokens of the texts from i on, each with its space (texts k.. counted).
  let k = list.length;
  let spacedSum = 0;
  const spacedFrom: number[] = [0];
  const countDownTo = (from: number) => {
    while (k > from && spacedSum <= budget) {
      k--;
      const c = counter.spaced(list[k], LLAMAINDEX_ENCODING);
      alone[k] = c.alone;
      spacedSum += c.spaced;
      spacedFrom.push(spacedSum);
    }
  };
  return (from) => {
    if (from >= list.length) return 0;
    countDownTo(from);
    // Not reached: the texts after k-1 alone hold spacedSum > budget tokens, and so does every window that holds them.
    if (from < k) return Infinity;
    const after = spacedFrom[list.length - from - 1]; // texts from+1.. with their spaces
    return alone[from] + after;
  };
}

/**
 * How many of the newest messages Memory.getLLM keeps: newest first while the joined texts
 * taken so far, the next text and the call's messages fit. Per-text counts (see suffixCounter);
 * null when a text reached ends in white space (its last piece may then run into the next).
 */
function takenNewestFirst(newestTexts: string[], shortTerm: number, tempTokens: number, counter: TextCounter): number | null {
  let joinedTokens = 0; // tokens of newestTexts[0..taken).join(" ")
  let taken = 0;
  for (let i = 0; i < newestTexts.length; i++) {
    // LlamaIndex tokenizes only the messages it reaches (newest first, up to the first that does not fit).
    checkSpecial([newestTexts[i]], "messages");
    if (i > 0 && !endsJoinable(newestTexts[i - 1])) return null;
    const c = counter.spaced(newestTexts[i], LLAMAINDEX_ENCODING);
    if (joinedTokens + c.alone + tempTokens > shortTerm) break;
    joinedTokens = i === 0 ? c.alone : joinedTokens + c.spaced;
    taken++;
  }
  return taken;
}

/** takenNewestFirst for any texts, from scans of the joined string. */
function takenByJoinedScan(newestTexts: string[], shortTerm: number, tempTokens: number): number {
  // Only the newest messages are reached: the joined text is scanned over a window of them that
  // doubles when the loop gets to its end (a prefix's count does not depend on what follows it).
  let scanned = Math.min(newestTexts.length, 64);
  let joined = new JoinedTexts(newestTexts.slice(0, scanned), LLAMAINDEX_ENCODING);
  let taken = 0;
  for (let i = 0; i < newestTexts.length; i++) {
    if (i >= scanned) {
      scanned = Math.min(newestTexts.length, scanned * 2);
      joined = new JoinedTexts(newestTexts.slice(0, scanned), LLAMAINDEX_ENCODING);
    }
    checkSpecial([newestTexts[i]], "messages");
    const next = joined.prefix(taken) + countTextTokens(newestTexts[i], LLAMAINDEX_ENCODING) + tempTokens;
    if (next > shortTerm) break;
    taken++;
  }
  return taken;
}
