import { configuredChat } from "../chat/chat-provider";
import { presetFor, type ModelPreset } from "../models/model-presets";
import { DEFAULT_MODEL } from "../tokens/registry";
import { modelSummarizer } from "./agentscope/model-summarizer";
import { replayAutoContext, runAutoContext, type AutoContextRun, type SummaryInfo } from "./agentscope/run-auto-context";
import { placeholderSummarizer } from "./agentscope/summarize-placeholder";
import type { SummaryCache } from "./agentscope/summary-cache";
import { countLlamaBufferAhead } from "./counts-ahead";
import { langchainTrimStrategy } from "./frameworks/langchain-trim";
import { llamaindexBufferStrategy, llamaindexMemoryStrategy } from "./frameworks/llamaindex-memory";
import { mastraLastMessagesStrategy } from "./frameworks/mastra-last-messages";
import { anyLongPiece, listTokens, primeContentTokens, primeLongPiece, tokensKnown } from "./message-tokens";
import { messageWindowStrategy } from "./message-window-strategy";
import type { AutoContextStrategy, RoleMessage, Strategy, WindowResult } from "./schemas";
import { summaryBufferStrategy } from "./summary-buffer-strategy";
import type { StrategyOutput } from "./strategy-types";
import { uncachedCounter, type TextCounter } from "./text-counts";
import { tokenBufferStrategy } from "./token-buffer-strategy";

/** The least a request waits for the pool's counts before counting them itself (a worker's turn on a loaded machine). */
const AHEAD_MIN_WAIT_MS = 20;

export type AppliedWindow = WindowResult & { offloads: NonNullable<StrategyOutput["offloads"]>; preset: ModelPreset; sourceIndex: number[] };

/**
 * Runs one strategy over role messages and reports the final list, its tokens and
 * every drop or change with its reason. Temporary messages go last, untouched.
 */
export async function applyStrategy(
  messages: RoleMessage[],
  strategy: Strategy,
  opts: { model?: string; temporary?: RoleMessage[]; presets?: readonly ModelPreset[]; autoContext?: AutoContextPlan; textCounts?: TextCounter } = {},
): Promise<AppliedWindow> {
  const preset = presetFor(opts.model ?? DEFAULT_MODEL, opts.presets);
  const ctx = { encoding: preset.encoding, contextWindow: preset.context_window };
  const temporary = opts.temporary ?? [];
  const counter = opts.textCounts ?? uncachedCounter;
  let out: StrategyOutput;
  let report: AutoContextRun["report"] | undefined;
  if (strategy.type === "message_window") {
    out = messageWindowStrategy(messages, strategy, temporary);
  } else if (strategy.type === "llamaindex_buffer") {
    // The model's counts of the likely kept texts on the pool while cl100k decides here.
    const ahead = opts.textCounts ? countLlamaBufferAhead(messages, temporary, strategy, ctx, opts.textCounts) : null;
    const t0 = performance.now();
    out = llamaindexBufferStrategy(messages, strategy, ctx, temporary, counter);
    // Waits for the pool about as long as the thread counted (the pool's share is the same size), then counts inline.
    if (ahead) await ahead.settle(Math.max(AHEAD_MIN_WAIT_MS, 2 * (performance.now() - t0)));
  } else if (strategy.type === "llamaindex_memory") {
    out = llamaindexMemoryStrategy(messages, strategy, temporary, counter);
  } else if (strategy.type === "mastra_last_messages") {
    out = mastraLastMessagesStrategy(messages, strategy, temporary);
  } else {
    if (strategy.type === "auto_context") {
      const run = await runAutoContextPlan(messages, strategy, opts.autoContext ?? {});
      out = run;
      report = run.report;
    } else {
      out =
        strategy.type === "token_buffer"
          ? tokenBufferStrategy(messages, strategy, ctx)
          : strategy.type === "langchain_trim"
            ? langchainTrimStrategy(messages, strategy, { ...ctx, counter })
            : await summaryBufferStrategy(messages, strategy, ctx, configuredChat());
    }
    if (temporary.length) {
      out.messages = [...out.messages, ...temporary];
      out.sourceIndex = [...out.sourceIndex, ...temporary.map(() => -1)];
      temporary.forEach((_, i) =>
        out.transformed.push({ index: -1, action: "temporary_appended", reason: `temporary message ${i + 1} of ${temporary.length}: used once, not stored` }),
      );
    }
  }
  if (opts.textCounts) primeFromCounter(out.messages, preset.encoding, opts.textCounts);
  return {
    messages: out.messages,
    total_tokens: listTokens(out.messages, preset.encoding),
    dropped: out.dropped,
    transformed: out.transformed,
    ...(out.triggered !== undefined ? { triggered: out.triggered } : {}),
    ...(report ? { auto_context: report } : {}),
    model: preset.model,
    encoding: preset.encoding,
    approximate: !preset.exact || anyLongPiece(out.messages, preset.encoding),
    context_window: preset.context_window,
    offloads: out.offloads ?? [],
    preset,
    sourceIndex: out.sourceIndex,
  };
}

/**
 * The kept messages' counts from the text counter (a hit for a text counted by an earlier
 * request or by the strategy itself), for total_tokens and the long-piece check. Only a plain
 * text message: its count is its text's, and its long-piece flag is the count's `approximate`
 * (both ask whether a piece is over MAX_PIECE_BYTES); list contents and tool calls are counted
 * as before. A message whose counts are already known (a stored turn's) is left as it is.
 */
function primeFromCounter(messages: RoleMessage[], encoding: ModelPreset["encoding"], counter: TextCounter): void {
  for (const m of messages) {
    if (typeof m.content !== "string" || m.tool_calls?.length || tokensKnown(m, encoding)) continue;
    const c = counter.count(m.content, encoding);
    primeContentTokens(m, encoding, c.tokens);
    primeLongPiece(m, encoding, c.approximate);
  }
}

/**
 * How auto_context runs: on the given memory (a preview), or as a replay of a stored
 * conversation (`replay.next` is the new query), with the agent's system prompt when
 * the caller assembles it (/context).
 */
export type AutoContextPlan = {
  /** A replay of a stored conversation (null: a pasted history), with the new query. */
  replay?: { next: RoleMessage | null; conversationId: string | null };
  /** Where the model's summaries are kept (the database's, per project); this process's when absent. */
  summaryCache?: SummaryCache;
  systemPrompt?: string;
  newUuid?: () => string;
};

/** Summaries from the configured chat model (cached per conversation and step), else a labelled placeholder. */
export function summaryInfo(conversationId: string | null, mode: AutoContextStrategy["summarizer"] = "auto", cache?: SummaryCache): SummaryInfo {
  const chat = configuredChat();
  if (!chat || mode === "placeholder") return { summarize: placeholderSummarizer, model: null, counts: () => ({ calls: 0, cached: 0 }), chatModel: chat?.model ?? null };
  const m = modelSummarizer(chat, conversationId, cache);
  return { summarize: m.summarize, model: chat.model, counts: () => ({ ...m.counts }), setCall: m.setCall, chatModel: chat.model };
}

async function runAutoContextPlan(messages: RoleMessage[], strategy: AutoContextStrategy, plan: AutoContextPlan): Promise<AutoContextRun> {
  const opts = { systemPrompt: plan.systemPrompt, newUuid: plan.newUuid };
  if (plan.replay) return replayAutoContext(messages, plan.replay.next, strategy, summaryInfo(plan.replay.conversationId, strategy.summarizer, plan.summaryCache), opts);
  return runAutoContext(messages, strategy, summaryInfo(null, strategy.summarizer, plan.summaryCache), opts);
}
