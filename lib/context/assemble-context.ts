import "server-only";
import { requireConversationOfUser } from "../conversations/require-conversation-of-user";
import type { ProjectSql } from "../db/project-sql";
import type { SearchInput } from "../memories/schemas";
import { searchMemories, type SearchOptions } from "../memories/search-memories";
import { presetFor, type ModelPreset } from "../models/model-presets";
import { savedPresets } from "../models/model-settings";
import { hookSystemMessages } from "../strategies/agentscope/hook";
import { storedSummaryCache } from "../strategies/agentscope/summary-cache";
import { applyStrategy } from "../strategies/apply-strategy";
import { anyLongPiece, listTokens, roleMessageTokens } from "../strategies/message-tokens";
import { storeOffloads } from "../strategies/offloaded-contents";
import type { RoleMessage } from "../strategies/schemas";
import { REPLY_PRIMING_TOKENS } from "../tokens/chat-formula";
import { formatMemories } from "./format-memories";
import { loadThreadMessages, type TextScope } from "./load-thread-messages";
import type { ContextInput, ContextResult } from "./schemas";
import type { Anchor } from "../threads/load-thread";

type Section = ContextResult["message_sections"][number];

const CALL_PLACING = new Set<ContextInput["strategy"]["type"]>(["llamaindex_buffer", "llamaindex_memory", "mastra_last_messages"]);

/** The stored text a strategy can send: a window keeps only the newest turns; auto_context and summary_buffer read everything. */
function textScopeFor(strategy: ContextInput["strategy"]): TextScope {
  if (strategy.type === "token_buffer") return { kind: "newest_tokens", tokens: strategy.max_token_limit };
  if (strategy.type === "message_window") return { kind: "newest_messages", messages: strategy.max_attached_message_count };
  return { kind: "all" };
}
type Retrieved = { id: string; memory_type: ContextResult["memories"][number]["memory_type"]; content: string; score: number };

/** The memories a prompt gets, best first: k and min_score already applied. */
export type RetrievedMemories = { memories: Retrieved[]; retrieval_id: string | null; access_recorded: boolean };

/**
 * What assembleContext reads from outside the request, so a replay can run the very same
 * assembly at another instant: the memory retrieval (and with it the clock its scores are
 * measured at) and the thread's history. Defaults: today's logged search, the stored thread.
 */
export type ContextDeps = {
  retrieve?: (sql: ProjectSql, userId: string, search: SearchInput) => Promise<RetrievedMemories>;
  /** The history instead of the stored thread (a replay of a conversation's first turn: none). */
  history?: () => Promise<RoleMessage[]>;
  /**
   * false: the strategy's offloaded contents are not stored (their refs in the prompt then
   * resolve to nothing). For reads that show a prompt rather than serve one, such as sent vs
   * modelled (a GET): they must write nothing. Default true: POST /context stores them.
   */
  storeOffloads?: boolean;
  /** The caller read the conversation and checked it is this user's (a replay reads it with its turn): not read again. */
  conversationChecked?: boolean;
  /** The history leaf's position, when the caller read it already (a replay's turn statement): not looked up again. */
  leafAnchor?: Anchor;
  /** The saved model presets, when the caller read them already (a replay's turn statement): not read again. */
  presets?: readonly ModelPreset[];
};

function liveRetrieval(opts: SearchOptions): NonNullable<ContextDeps["retrieve"]> {
  return async (sql, userId, search) => {
    const r = await searchMemories(sql, userId, search, opts);
    return {
      memories: r.data.map((h) => ({ id: h.memory.id, memory_type: h.memory.memory_type, content: h.memory.content, score: h.score })),
      retrieval_id: r.retrieval_id,
      access_recorded: r.access_recorded,
    };
  };
}

/**
 * AgentScope's STATIC_CONTROL assembly with the design doc's memory injection:
 * system prompt + retrieved long-term memories, then the history after the chosen
 * strategy, then the query (and temporary messages). The whole is fitted to the
 * model's context window minus the reserved output: oldest history turns go first,
 * then the lowest-scoring memories. Every cut is reported with its reason.
 */
export async function assembleContext(sql: ProjectSql, input: ContextInput, retrieval: SearchOptions, deps: ContextDeps = {}): Promise<ContextResult> {
  const presets = deps.presets ?? (await savedPresets(sql));
  const preset = presetFor(input.model, presets);
  const enc = preset.encoding;

  let history: RoleMessage[] = [];
  let source: ContextResult["history_source"] = "none";
  if (input.conversation_id) {
    if (!deps.conversationChecked) await requireConversationOfUser(sql, input.conversation_id, input.user_id, { field: "conversation_id", missing: "not_found" });
    history = deps.history
      ? await deps.history()
      : await loadThreadMessages(sql, input.conversation_id, input.leaf_message_id, enc, textScopeFor(input.strategy), deps.leafAnchor);
    source = "conversation";
  } else if (input.messages) {
    history = input.messages;
    source = "inline";
  }

  let retrieved: Retrieved[] = [];
  let retrievalId: string | null = null;
  let accessRecorded = false;
  if (input.memory.enabled) {
    const r = await (deps.retrieve ?? liveRetrieval(retrieval))(sql, input.user_id, {
      query: input.query,
      k: input.memory.k,
      memory_types: input.memory.memory_types,
      min_score: input.memory.min_score,
      weights: input.memory.weights,
      status: "active",
      dry_run: input.memory.dry_run,
      conversation_id: input.conversation_id,
    });
    retrievalId = r.retrieval_id;
    accessRecorded = r.access_recorded;
    retrieved = r.memories;
  }

  const queryMessage: RoleMessage = { role: "user", content: input.query };
  // auto_context replays the agent over the history with the query appended (AgentScope
  // compresses before each model call); nothing of its history is dropped to fit.
  const auto = input.strategy.type === "auto_context" ? input.strategy : null;
  const temporary = input.temporary_messages ?? [];
  // LlamaIndex and Mastra place the call's messages themselves (LlamaIndex's buffer before the
  // history, its Memory counting them twice; Mastra's "." looks at the whole prompt): the query
  // and temporary messages go through the strategy and come back where the framework puts them.
  const framework = CALL_PLACING.has(input.strategy.type);
  const callMessages = framework ? [queryMessage, ...temporary] : undefined;
  const applied = await applyStrategy(history, input.strategy, {
    model: input.model,
    presets,
    ...(callMessages ? { temporary: callMessages } : {}),
    ...(auto ? { autoContext: { replay: { next: queryMessage, conversationId: input.conversation_id ?? null }, summaryCache: storedSummaryCache(sql) } } : {}),
  });
  if (deps.storeOffloads !== false) await storeOffloads(sql, applied.offloads, { userId: input.user_id, conversationId: input.conversation_id ?? null });
  const dropped: ContextResult["dropped"] = applied.dropped.map((d) => ({ ...d, section: "history" as const }));

  // History after the strategy, with where each message came from.
  let hist = applied.messages.map((m, i) => ({ m, index: applied.sourceIndex[i] }));
  // auto_context's list is [hook system message, ...memory, query]: the hook is rebuilt
  // below around the assembled system text, and the query goes in its own section.
  if (auto && hist.at(-1)?.m === queryMessage) hist = hist.slice(1, -1);
  let included = [...retrieved];
  const temporarySet = new Set<RoleMessage>(temporary);

  const systemText = (mems: Retrieved[]) => [input.system_prompt, formatMemories(mems, input.memory.format)].filter((s) => s.trim()).join("\n\n");
  const build = () => {
    const sys = systemText(included);
    const messages: RoleMessage[] = [];
    const sections: Section[] = [];
    if (auto) {
      hookSystemMessages(sys, auto.hook_wiring).forEach((m, k) => {
        messages.push(m);
        sections.push(k === 0 && !input.system_prompt.trim() && sys ? "memories" : "system");
      });
    } else if (sys) {
      messages.push({ role: "system", content: sys });
      sections.push(input.system_prompt.trim() ? "system" : "memories");
    }
    for (const h of hist) {
      messages.push(h.m);
      sections.push(h.m === queryMessage ? "query" : temporarySet.has(h.m) && h.index < 0 ? "temporary" : "history");
    }
    if (framework) return { messages, sections };
    messages.push(queryMessage);
    sections.push("query");
    for (const t of temporary) {
      messages.push(t);
      sections.push("temporary");
    }
    return { messages, sections };
  };

  const budget = preset.context_window - input.reserved_output_tokens;
  let built = build();
  // Fit: drop the oldest history turn (a turn starts at a user message), keeping
  // leading system messages the strategy produced (its summary, its system message).
  while (listTokens(built.messages, enc) > budget) {
    let lead = 0;
    while (lead < hist.length && hist[lead].m.role === "system") lead++;
    // auto_context and the frameworks that place the call's messages keep their history as they made it.
    if (lead < hist.length && !auto && !framework) {
      let end = lead + 1;
      while (end < hist.length && hist[end].m.role !== "user") end++;
      for (const h of hist.slice(lead, end)) {
        dropped.push({ section: "history", index: h.index, reason: `context window: ${preset.context_window} minus ${input.reserved_output_tokens} reserved output` });
      }
      hist = [...hist.slice(0, lead), ...hist.slice(end)];
    } else if (included.length) {
      const lowest = included.reduce((a, b) => (b.score < a.score ? b : a));
      included = included.filter((m) => m !== lowest);
      dropped.push({ section: "memories", index: retrieved.indexOf(lowest), reason: `context window: lowest-scoring memory left out (score ${lowest.score.toFixed(3)})` });
    } else break;
    built = build();
  }

  const total = listTokens(built.messages, enc);
  const sysWithout = systemText([]);
  const sysWith = systemText(included);
  const systemTokens = (text: string) => (text ? roleMessageTokens({ role: "system", content: text }, enc) : 0);
  const sectionSum = (name: Section) => built.messages.reduce((s, m, i) => s + (built.sections[i] === name ? roleMessageTokens(m, enc) : 0), 0);
  const systemOnly = systemTokens(sysWithout);
  const memoriesTokens = systemTokens(sysWith) - systemOnly;
  const sections = {
    // auto_context's hook instruction belongs to the system section.
    system: auto ? sectionSum("system") + sectionSum("memories") - memoriesTokens : systemOnly,
    memories: memoriesTokens,
    history: sectionSum("history"),
    // The reply priming belongs with the turn being asked.
    query: sectionSum("query") + (built.messages.length ? REPLY_PRIMING_TOKENS : 0),
    temporary: sectionSum("temporary"),
    reserved_output: input.reserved_output_tokens,
    free: Math.max(0, preset.context_window - input.reserved_output_tokens - total),
    context_window: preset.context_window,
    total,
  };

  return {
    messages: built.messages,
    fits: total <= budget,
    sections,
    message_sections: built.sections,
    memories: retrieved.map((m) => ({ ...m, included: included.includes(m) })),
    retrieval_id: retrievalId,
    memory_access_recorded: accessRecorded,
    history_source: source,
    strategy: { type: input.strategy.type, ...(applied.triggered !== undefined ? { triggered: applied.triggered } : {}) },
    dropped,
    transformed: applied.transformed,
    ...(applied.auto_context ? { auto_context: applied.auto_context } : {}),
    model: preset.model,
    encoding: enc,
    exact: preset.exact,
    approximate: !preset.exact || anyLongPiece(built.messages, enc),
  };
}
