import { countTextTokens } from "../../tokens/count-tokens";
import type { EncodingName } from "../../tokens/registry";
import type { RoleMessage } from "../schemas";
import type { TextCounter } from "../text-counts";
import type { Dropped, StrategyOutput, Transformed } from "../strategy-types";
import { frameworkRefuses, unpairedNotes } from "./unpaired";

// LangChain JS `trimMessages` (@langchain/core 1.4, messages/transformers), step by step as
// its code runs, with its surprises kept on purpose: they are what an agent built on it sends.

export type LangChainType = "human" | "ai" | "system" | "tool";
export type LangChainTrimOptions = {
  max_tokens: number;
  strategy: "first" | "last";
  include_system: boolean;
  start_on?: LangChainType | LangChainType[];
  end_on?: LangChainType | LangChainType[];
  allow_partial: boolean;
  token_counter: "messages" | "chars" | "words" | "model";
};

const TYPE_OF: Record<RoleMessage["role"], LangChainType> = { user: "human", assistant: "ai", system: "system", tool: "tool" };
type Content = RoleMessage["content"];
type Item = { m: RoleMessage; index: number; content: Content; part?: string };

// Special tokens: js-tiktoken (which LangChain's getNumTokens uses) refuses to encode text
// holding one and LangChain then falls back to its estimate, a quarter of the length.
const SPECIAL: Record<EncodingName, string[]> = {
  cl100k_base: ["<|endoftext|>", "<|fim_prefix|>", "<|fim_middle|>", "<|fim_suffix|>", "<|endofprompt|>"],
  o200k_base: ["<|endoftext|>", "<|endofprompt|>"],
};

/**
 * BaseLanguageModel.getNumTokens of one message's content: text blocks joined with nothing, then
 * tiktoken. A counter (POST /window's, per project) keeps a text's count for the answer's
 * total_tokens, which is in the same encoding: a kept message is counted once.
 */
export function langchainModelTokens(content: Content, encoding: EncodingName, counter?: TextCounter): number {
  const text = typeof content === "string" ? content : content.map((b) => (b.type === "text" ? b.text : "")).join("");
  if (SPECIAL[encoding].some((s) => text.includes(s))) return Math.ceil(text.length / 4);
  return counter ? counter.count(text, encoding).tokens : countTextTokens(text, encoding);
}

const words = (text: string) => text.split(/\s+/).filter(Boolean).length;

/**
 * The token counters this strategy offers, each the function you would pass as `tokenCounter`
 * (or, for "model", a ChatOpenAI instance, whose getNumTokens counts each message's content).
 * All four add up per message, which trimMessages relies on nowhere but lets this run in linear time.
 */
export function langchainCost(content: Content, counter: LangChainTrimOptions["token_counter"], encoding: EncodingName, texts?: TextCounter): number {
  switch (counter) {
    case "messages":
      return 1;
    case "chars":
      return typeof content === "string" ? content.length : content.reduce((n, b) => n + (b.type === "text" ? b.text.length : 0), 0);
    case "words":
      return typeof content === "string" ? words(content) : content.reduce((n, b) => n + (b.type === "text" ? words(b.text) : 0), 0);
    case "model":
      return langchainModelTokens(content, encoding, texts);
  }
}

const asList = (t: LangChainType | LangChainType[] | undefined) => (t === undefined ? undefined : new Set(Array.isArray(t) ? t : [t]));
const named = (t: LangChainType | LangChainType[]) => (Array.isArray(t) ? t.join(" or ") : t);

/** defaultTextSplitter: lines, each but the last keeping its "\n". */
function splitLines(text: string): string[] {
  const s = text.split("\n");
  return [...s.slice(0, -1).map((x) => `${x}\n`), s[s.length - 1]];
}

// partCost: the cost of a part of a message (allow_partial's pieces), never kept in a text counter.
type FirstOpts = { max: number; cost: (c: Content) => number; partCost: (c: Content) => number; partial?: "first" | "last"; endOn?: Set<LangChainType>; endOnName?: string };

/** _firstMaxTokens: the longest prefix that fits, then optionally a part of the next message, then cut back to end_on. */
function firstMaxTokens(list: Item[], o: FirstOpts, why: Map<number, string>, overReason: string, pruneReason: string): Item[] {
  let copy = [...list];
  // LangChain tries the whole list, then one message fewer, and so on, and keeps the first
  // that fits. Costs are never negative, so that is the longest prefix that fits: found from
  // the front, counting only the messages up to the first that does not fit (not all 1000).
  const before = [0];
  let idx = 0;
  while (idx < copy.length) {
    const next = before[idx] + o.cost(copy[idx].content);
    if (next > o.max) break;
    before.push(next);
    idx++;
  }
  for (const it of copy.slice(idx)) why.set(it.index, overReason);
  if (idx < copy.length && o.partial) {
    let included = false;
    const excluded = copy[idx];
    let used = before[idx];
    if (Array.isArray(excluded.content)) {
      const blocks = excluded.content;
      const ordered = o.partial === "last" ? [...blocks].reverse() : blocks;
      for (let i = 1; i <= blocks.length; i++) {
        const piece = o.partial === "first" ? ordered.slice(0, i) : ordered.slice(-i);
        const c = o.partCost(piece);
        if (used + c > o.max) break;
        copy = [...copy.slice(0, idx), { ...excluded, content: piece, part: `its first ${i} of ${blocks.length} content blocks` }];
        used += c;
        idx += 1;
        included = true;
      }
    }
    if (!included) {
      let text: string | undefined;
      if (Array.isArray(excluded.content) && excluded.content.some((b) => b.type === "text")) {
        text = (excluded.content.find((b) => b.type === "text" && b.text) as { text: string } | undefined)?.text;
      } else if (typeof excluded.content === "string") text = excluded.content;
      if (text) {
        const splits = splitLines(text);
        const total = splits.length;
        if (o.partial === "last") splits.reverse();
        for (let k = 0; k < total - 1; k++) {
          splits.pop();
          // Measured as joined in this order (lines reversed for "last"), kept in reading order.
          if (used + o.partCost(splits.join("")) <= o.max) {
            const kept = o.partial === "last" ? [...splits].reverse().join("") : splits.join("");
            const side = o.partial === "last" ? "last" : "first";
            copy = [...copy.slice(0, idx), { ...excluded, content: kept, part: `its ${side} ${splits.length} of ${total} lines` }];
            idx += 1;
            break;
          }
        }
      }
    }
  }
  if (o.endOn) {
    while (idx > 0 && !o.endOn.has(TYPE_OF[copy[idx - 1].m.role])) {
      idx -= 1;
      if (copy[idx].index >= 0 || copy[idx].part) why.set(copy[idx].index, pruneReason);
    }
  }
  return copy.slice(0, idx);
}

/**
 * trimMessages(messages, { maxTokens, strategy, includeSystem, startOn, endOn, allowPartial, tokenCounter }).
 * Throws a 422 where LangChain throws, and where it answers `[undefined]`.
 */
export function langchainTrimStrategy(messages: RoleMessage[], opts: LangChainTrimOptions, ctx: { encoding: EncodingName; counter?: TextCounter }): StrategyOutput {
  if (opts.strategy === "first" && opts.start_on !== undefined) {
    throw frameworkRefuses("strategy.start_on", "LangChain's trimMessages throws when start_on is set with strategy first (\"`startOn` should only be specified if `strategy` is 'last'\")");
  }
  if (opts.strategy === "first" && opts.include_system) {
    throw frameworkRefuses("strategy.include_system", "LangChain's trimMessages throws when include_system is set with strategy first");
  }
  const cost = (c: Content) => langchainCost(c, opts.token_counter, ctx.encoding, ctx.counter);
  const partCost = (c: Content) => langchainCost(c, opts.token_counter, ctx.encoding);
  const why = new Map<number, string>();
  const items: Item[] = messages.map((m, index) => ({ m, index, content: m.content }));
  const limit = `${opts.max_tokens} (${opts.token_counter})`;
  let kept: Item[];
  if (opts.strategy === "first") {
    kept = firstMaxTokens(
      items,
      { max: opts.max_tokens, cost, partCost, partial: opts.allow_partial ? "first" : undefined, endOn: asList(opts.end_on) },
      why,
      `after the first messages that fit max_tokens ${limit}`,
      `cut so the window ends on ${opts.end_on ? named(opts.end_on) : ""} (end_on)`,
    );
  } else {
    let copy = items;
    const endOn = asList(opts.end_on);
    if (endOn) {
      while (copy.length > 0 && !endOn.has(TYPE_OF[copy[copy.length - 1].m.role])) {
        why.set(copy[copy.length - 1].index, `after the last ${named(opts.end_on!)} message (end_on)`);
        copy = copy.slice(0, -1);
      }
    }
    const swapped = opts.include_system && copy[0]?.m.role === "system";
    const reversed = swapped ? [copy[0], ...copy.slice(1).reverse()] : [...copy].reverse();
    const picked = firstMaxTokens(
      reversed,
      { max: opts.max_tokens, cost, partCost, partial: opts.allow_partial ? "last" : undefined, endOn: asList(opts.start_on) },
      why,
      `older than the newest messages that fit max_tokens ${limit}`,
      `cut so the window starts on ${opts.start_on ? named(opts.start_on) : ""} (start_on)${swapped ? "; LangChain cuts the system message this way too" : ""}`,
    );
    if (swapped && picked.length === 0) {
      throw frameworkRefuses(
        "strategy.include_system",
        "LangChain's trimMessages returns [undefined] here: include_system is set but nothing is left, not even the system message (it does not fit max_tokens, or start_on cut it)",
      );
    }
    kept = swapped ? [picked[0], ...picked.slice(1).reverse()] : picked.reverse();
  }

  const out = kept.map((it) => (it.part ? { ...it.m, content: it.content } : it.m));
  const sourceIndex = kept.map((it) => it.index);
  const keptWhole = new Set(kept.filter((it) => !it.part).map((it) => it.index));
  const transformed: Transformed[] = [];
  const parts = new Map<number, Item[]>();
  for (const it of kept) if (it.part) parts.set(it.index, [...(parts.get(it.index) ?? []), it]);
  for (const [index, pieces] of parts) {
    transformed.push({
      index,
      action: "split",
      reason:
        pieces.length > 1
          ? `LangChain kept part of this message (allow_partial) as ${pieces.length} separate messages, one per growing piece that fit`
          : `LangChain kept part of this message (allow_partial): ${pieces[0].part}`,
    });
  }
  const dropped: Dropped[] = messages
    .map((_, index) => index)
    .filter((index) => !keptWhole.has(index) && !parts.has(index))
    .map((index) => ({ index, reason: why.get(index) ?? `older than the newest messages that fit max_tokens ${limit}` }));
  transformed.push(...unpairedNotes(messages, out, sourceIndex, "LangChain"));
  return { messages: out, sourceIndex, dropped, transformed: transformed.sort((a, b) => a.index - b.index) };
}
