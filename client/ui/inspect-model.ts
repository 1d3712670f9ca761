// Pure helpers of the prompt inspector: strategy defaults, request bodies, one result
// shape for /context and /window, the compare diff and the OpenAI export. Type-only
// imports from the shared contracts: the client bundle gets the types, not zod.
import type { ContextInput, ContextResult } from "@/lib/context/schemas";
import type { MemoryType } from "@/lib/memories/schemas";
import type { AutoContextReport, RoleMessage, Strategy, WindowInput, WindowResult } from "@/lib/strategies/schemas";
import type { AutoContextConfig } from "@/lib/strategies/agentscope/state";

export type { AutoContextReport, RoleMessage, Strategy };
export type StrategyType = Strategy["type"];
export type SectionName = ContextResult["message_sections"][number];
export type MemoryFormat = ContextInput["memory"]["format"];
export type TransformAction = WindowResult["transformed"][number]["action"];

export const STRATEGY_TYPES: StrategyType[] = [
  "token_buffer",
  "message_window",
  "auto_context",
  "summary_buffer",
  "langchain_trim",
  "llamaindex_buffer",
  "llamaindex_memory",
  "mastra_last_messages",
];

export const STRATEGY_LABEL: Record<StrategyType, string> = {
  token_buffer: "Token buffer",
  message_window: "Message window",
  auto_context: "AgentScope AutoContextMemory",
  summary_buffer: "Summary buffer (Memscope)",
  langchain_trim: "LangChain JS trimMessages",
  llamaindex_buffer: "LlamaIndex TS ChatMemoryBuffer",
  llamaindex_memory: "LlamaIndex TS Memory.getLLM",
  mastra_last_messages: "Mastra lastMessages",
};

export const STRATEGY_HINT: Record<StrategyType, string> = {
  token_buffer: "Keep the newest turns that fit in max_token_limit (LangChain ConversationTokenBufferMemory).",
  message_window: "Keep the newest N messages, optionally truncating each (Agents-Flex MemoryPrompt).",
  auto_context: "AgentScope v1.0.12 AutoContextMemory: at a message or estimated-token threshold, one of six strategies per model call (tool runs, large messages, past rounds, current round). Plain chat is never summarized.",
  summary_buffer: "Memscope's own: over a threshold, merge, summarize the older history into one message, offload large contents. Tool results stay with their calls.",
  langchain_trim:
    "@langchain/core 1.4 trimMessages, exactly: the newest (last) or oldest (first) messages that fit max_tokens. It cuts tool calls from their results unless start_on/end_on say otherwise.",
  llamaindex_buffer:
    "llamaindex 0.12 ChatMemoryBuffer.getMessages: the call's messages go BEFORE the history; the oldest go while over token_limit, counted as one text in cl100k_base.",
  llamaindex_memory:
    "llamaindex 0.12 Memory.getLLM: the newest messages that fit 0.7 of the limit (0.75 × the LLM's context window when given), the call's messages counted twice, then appended.",
  mastra_last_messages:
    "@mastra/memory 1.31 lastMessages: the newest N stored messages, where a whole agent reply (tool calls, results, text) is one; a user \".\" is inserted when the history starts with an assistant.",
};

/** Strategies with an include_tools switch (the peers' own strategies send tools as their framework does). */
export const HAS_INCLUDE_TOOLS: StrategyType[] = ["token_buffer", "message_window", "summary_buffer"];

const LC_TYPES = ["human", "ai", "system", "tool"] as const;
/** "human, tool" → ["human", "tool"]; one name alone is sent as a string; unknown names are left for the API to name. */
function lcTypes(text: string): Extract<Strategy, { type: "langchain_trim" }>["start_on"] {
  const names = text.split(/[\s,]+/).filter(Boolean) as (typeof LC_TYPES)[number][];
  if (!names.length) return undefined;
  return names.length === 1 ? names[0] : names;
}

/** Every strategy's parameters kept side by side, so switching type keeps what was typed. */
export type StrategyDraft = {
  type: StrategyType;
  token_buffer: { max_token_limit: number; include_tools: boolean };
  message_window: {
    max_attached_message_count: number;
    history_message_truncate_enable: boolean;
    history_message_truncate_length: number;
    system_message: string;
    include_tools: boolean;
  };
  // AgentScope's config fields, from the port itself rather than a second copy.
  auto_context: AutoContextConfig & {
    steps: number;
    hook_wiring: "1.0" | "1.1";
    summarizer: "auto" | "placeholder";
  };
  summary_buffer: { msg_threshold: number; token_ratio: number; last_keep: number; offload_tokens: number; include_tools: boolean };
  /** start_on / end_on: type names separated by commas ("" none). */
  langchain_trim: {
    max_tokens: number;
    strategy: "first" | "last";
    include_system: boolean;
    start_on: string;
    end_on: string;
    allow_partial: boolean;
    token_counter: "messages" | "chars" | "words" | "model";
  };
  /** 0: not set (LlamaIndex's default from the context window; the model's context window). */
  llamaindex_buffer: { token_limit: number; initial_token_count: number; context_window: number };
  /** context_window 0: no LLM given to getLLM (token_limit applies). */
  llamaindex_memory: { token_limit: number; short_term_token_limit_ratio: number; context_window: number };
  mastra_last_messages: { last_messages: number };
};

/** The schema defaults (token_buffer has none for max_token_limit: 2 000 is a useful start). Token buffer first, as in the rest of the app. */
export function defaultDraft(type: StrategyType = "token_buffer"): StrategyDraft {
  return {
    type,
    token_buffer: { max_token_limit: 2000, include_tools: true },
    message_window: {
      max_attached_message_count: 10,
      history_message_truncate_enable: false,
      history_message_truncate_length: 1000,
      system_message: "",
      include_tools: true,
    },
    // AgentScope's own AutoContextConfig defaults.
    auto_context: {
      msg_threshold: 100,
      token_ratio: 0.75,
      max_token: 131_072,
      last_keep: 50,
      large_payload_threshold: 5120,
      offload_single_preview: 200,
      min_consecutive_tool_messages: 6,
      min_compression_token_threshold: 5000,
      current_round_compression_ratio: 0.3,
      steps: 1,
      hook_wiring: "1.0",
      // Free first: the timeline says how many model calls a replay with the model would make.
      summarizer: "placeholder",
    },
    summary_buffer: { msg_threshold: 30, token_ratio: 0.3, last_keep: 10, offload_tokens: 2000, include_tools: true },
    langchain_trim: { max_tokens: 2000, strategy: "last", include_system: false, start_on: "", end_on: "", allow_partial: false, token_counter: "model" },
    llamaindex_buffer: { token_limit: 0, initial_token_count: 0, context_window: 0 },
    llamaindex_memory: { token_limit: 30_000, short_term_token_limit_ratio: 0.7, context_window: 0 },
    mastra_last_messages: { last_messages: 10 },
  };
}

export function isStrategyType(v: string | null | undefined): v is StrategyType {
  return !!v && (STRATEGY_TYPES as string[]).includes(v);
}

/** The wire strategy. Numbers are sent as typed (0 included) so the API's 422 names the field. */
export function toStrategy(d: StrategyDraft): Strategy {
  switch (d.type) {
    case "token_buffer":
      return { type: "token_buffer", ...d.token_buffer };
    case "message_window": {
      const { system_message, ...rest } = d.message_window;
      return { type: "message_window", ...rest, ...(system_message.trim() ? { system_message } : {}) };
    }
    case "auto_context":
      return { type: "auto_context", system_prompt: "", ...d.auto_context };
    case "summary_buffer":
      return { type: "summary_buffer", ...d.summary_buffer };
    case "langchain_trim": {
      const { start_on, end_on, ...rest } = d.langchain_trim;
      const s = lcTypes(start_on);
      const e = lcTypes(end_on);
      return { type: "langchain_trim", ...rest, ...(s ? { start_on: s } : {}), ...(e ? { end_on: e } : {}) };
    }
    case "llamaindex_buffer": {
      const { token_limit, context_window, initial_token_count } = d.llamaindex_buffer;
      return { type: "llamaindex_buffer", initial_token_count, ...(token_limit ? { token_limit } : {}), ...(context_window ? { context_window } : {}) };
    }
    case "llamaindex_memory": {
      const m = d.llamaindex_memory;
      return { type: "llamaindex_memory", token_limit: m.token_limit, short_term_token_limit_ratio: m.short_term_token_limit_ratio, context_window: m.context_window || null };
    }
    case "mastra_last_messages":
      return { type: "mastra_last_messages", last_messages: d.mastra_last_messages.last_messages };
  }
}

/** auto_context sends the agent's system prompt with the memory (the hook's instruction goes with it). */
function withSystemPrompt(s: Strategy, systemPrompt: string): Strategy {
  return s.type === "auto_context" ? { ...s, system_prompt: systemPrompt } : s;
}

export function strategySummary(d: StrategyDraft): string {
  switch (d.type) {
    case "token_buffer":
      return `token_buffer · ${d.token_buffer.max_token_limit} tok`;
    case "message_window":
      return `message_window · ${d.message_window.max_attached_message_count} msgs${d.message_window.history_message_truncate_enable ? ` · trunc ${d.message_window.history_message_truncate_length}` : ""}`;
    case "auto_context":
      return `auto_context · ${d.auto_context.msg_threshold} msgs / ${Math.floor(d.auto_context.max_token * d.auto_context.token_ratio)} est. tok · keep ${d.auto_context.last_keep}`;
    case "summary_buffer":
      return `summary_buffer · ${d.summary_buffer.msg_threshold} msgs / ${d.summary_buffer.token_ratio} ratio · keep ${d.summary_buffer.last_keep}`;
    case "langchain_trim":
      return `langchain_trim · ${d.langchain_trim.strategy} ${d.langchain_trim.max_tokens} (${d.langchain_trim.token_counter})`;
    case "llamaindex_buffer":
      return `llamaindex_buffer · ${d.llamaindex_buffer.token_limit || "0.75 × window"} tok`;
    case "llamaindex_memory":
      return `llamaindex_memory · ${d.llamaindex_memory.context_window ? `0.75 × ${d.llamaindex_memory.context_window}` : d.llamaindex_memory.token_limit} tok`;
    case "mastra_last_messages":
      return `mastra_last_messages · ${d.mastra_last_messages.last_messages} stored msgs`;
  }
}

// ---------------------------------------------------------------------------------
// Source and request

export type MemoryOptions = { enabled: boolean; k: number; types: MemoryType[]; minScore: string; format: MemoryFormat; dryRun: boolean };
export const DEFAULT_MEMORY: MemoryOptions = { enabled: true, k: 5, types: [], minScore: "", format: "user_memory", dryRun: true };

export type SourceTab = "stored" | "paste";

export type InspectSource = {
  tab: SourceTab;
  user: string;
  conversation: string;
  leaf: string;
  query: string;
  systemPrompt: string;
  memory: MemoryOptions;
  messagesText: string;
  temporaryText: string;
};

export type RunSettings = { model: string; reservedOutput: number };

export type InspectRequest =
  | { endpoint: "context"; body: ContextInput }
  | { endpoint: "window"; body: WindowInput; reservedOutput: number; input: RoleMessage[] };

/** A problem the browser can see before asking the API, keyed like the API's 422 fields. */
export type FieldIssue = { field: string; message: string };

/** Parses a messages textarea: JSON array (or {messages: [...]}) of role messages. */
export function parseMessages(text: string, field: string, { allowEmpty = false } = {}): { messages?: RoleMessage[]; issue?: FieldIssue } {
  const t = text.trim();
  if (!t) return allowEmpty ? { messages: [] } : { issue: { field, message: "Paste a JSON array of messages (or use the sample)" } };
  let raw: unknown;
  try {
    raw = JSON.parse(t);
  } catch (e) {
    return { issue: { field, message: `Not valid JSON: ${(e as Error).message}` } };
  }
  if (raw && typeof raw === "object" && !Array.isArray(raw) && Array.isArray((raw as { messages?: unknown }).messages)) raw = (raw as { messages: unknown[] }).messages;
  if (!Array.isArray(raw)) return { issue: { field, message: "Expected a JSON array of {role, content} objects" } };
  const roles = ["system", "user", "assistant", "tool"];
  for (let i = 0; i < raw.length; i++) {
    const m = raw[i] as Record<string, unknown> | null;
    if (!m || typeof m !== "object") return { issue: { field: `${field}[${i}]`, message: "must be an object" } };
    if (!roles.includes(String(m.role))) return { issue: { field: `${field}[${i}].role`, message: `must be one of ${roles.join(", ")}` } };
    if (m.content === undefined || m.content === null) {
      // OpenAI sends content: null on assistant tool calls; the API wants a string.
      if (m.role === "assistant" && Array.isArray(m.tool_calls)) m.content = "";
      else return { issue: { field: `${field}[${i}].content`, message: "is required" } };
    }
    if (Array.isArray(m.tool_calls)) {
      // Accept OpenAI's {id, type, function: {name, arguments}} as well as {id, name, arguments}.
      m.tool_calls = (m.tool_calls as Record<string, unknown>[]).map((c) => {
        const fn = c.function as { name?: string; arguments?: string } | undefined;
        return fn ? { id: c.id, name: fn.name, arguments: fn.arguments ?? "" } : c;
      });
    }
  }
  return { messages: raw as RoleMessage[] };
}

export function buildRequest(src: InspectSource, strategy: StrategyDraft, settings: RunSettings): { request?: InspectRequest; issues: FieldIssue[] } {
  const issues: FieldIssue[] = [];
  const memory: ContextInput["memory"] = {
    enabled: src.memory.enabled,
    k: src.memory.k,
    format: src.memory.format,
    dry_run: src.memory.dryRun,
    ...(src.memory.types.length ? { memory_types: src.memory.types } : {}),
    ...(src.memory.minScore.trim() !== "" && !Number.isNaN(Number(src.memory.minScore)) ? { min_score: Number(src.memory.minScore) } : {}),
  };
  const temp = parseMessages(src.temporaryText, "temporary_messages", { allowEmpty: true });
  if (temp.issue) issues.push(temp.issue);
  const temporary = temp.messages?.length ? temp.messages : undefined;

  if (src.tab === "stored") {
    if (!src.user) issues.push({ field: "user_id", message: "Pick a user" });
    if (!src.query.trim()) issues.push({ field: "query", message: "Type the query being asked" });
    if (issues.length) return { issues };
    return {
      issues,
      request: {
        endpoint: "context",
        body: {
          user_id: src.user,
          ...(src.conversation ? { conversation_id: src.conversation } : {}),
          ...(src.conversation && src.leaf ? { leaf_message_id: src.leaf } : {}),
          query: src.query,
          system_prompt: src.systemPrompt,
          model: settings.model,
          reserved_output_tokens: settings.reservedOutput,
          strategy: toStrategy(strategy),
          ...(temporary ? { temporary_messages: temporary } : {}),
          memory,
        },
      },
    };
  }

  const parsed = parseMessages(src.messagesText, "messages");
  if (parsed.issue) issues.push(parsed.issue);
  if (issues.length) return { issues };
  const messages = parsed.messages!;
  // With a user and a query, go through /context so that user's memories are injected.
  if (src.user && src.query.trim()) {
    return {
      issues,
      request: {
        endpoint: "context",
        body: {
          user_id: src.user,
          messages,
          query: src.query,
          system_prompt: src.systemPrompt,
          model: settings.model,
          reserved_output_tokens: settings.reservedOutput,
          strategy: toStrategy(strategy),
          ...(temporary ? { temporary_messages: temporary } : {}),
          memory,
        },
      },
    };
  }
  return {
    issues,
    request: {
      endpoint: "window",
      body: {
        messages,
        model: settings.model,
        // auto_context puts the agent's system prompt in front of the memory, with the hook's instruction.
        strategy: withSystemPrompt(toStrategy(strategy), src.systemPrompt),
        ...(temporary ? { temporary_messages: temporary } : {}),
      },
      reservedOutput: settings.reservedOutput,
      input: messages,
    },
  };
}

// ---------------------------------------------------------------------------------
// One result shape

export const BUDGET_KEYS = ["system", "memories", "history", "query", "temporary", "reserved_output", "free"] as const;
export type BudgetKey = (typeof BUDGET_KEYS)[number];
export type Budget = Record<BudgetKey, number> & { context_window: number; total: number };

export type InspectResult = {
  endpoint: "context" | "window";
  messages: RoleMessage[];
  sections: SectionName[];
  budget: Budget;
  /** Section tokens are the API's (context) or split by characters (window: only the total is counted). */
  budgetApproximate: boolean;
  fits: boolean;
  memories: ContextResult["memories"];
  dropped: { section: "history" | "memories"; index: number; reason: string; preview?: string }[];
  transformed: (WindowResult["transformed"][number] & { preview?: string })[];
  strategy: { type: string; triggered?: boolean };
  historySource: ContextResult["history_source"];
  model: string;
  encoding: string;
  exact: boolean;
  /** Some count is approximate: a stand-in tokenizer, or a word of hundreds of letters. */
  approximate: boolean;
  retrievalId: string | null;
  /** auto_context: AgentScope's steps (a replay of a stored conversation, or the calls on a pasted memory). */
  autoContext?: AutoContextReport;
};

export function textOf(m: RoleMessage): string {
  if (typeof m.content === "string") return m.content;
  return m.content.map((p) => (p.type === "text" ? p.text : `[${p.type}${p.url ? ` ${p.url}` : ""}]`)).join("\n");
}

const preview = (m: RoleMessage | undefined) => (m ? `${m.role}: ${textOf(m).replace(/\s+/g, " ").trim().slice(0, 160)}` : undefined);

export function fromContext(r: ContextResult, input?: RoleMessage[]): InspectResult {
  return {
    endpoint: "context",
    messages: r.messages,
    sections: r.message_sections,
    budget: { ...r.sections },
    budgetApproximate: false,
    fits: r.fits,
    memories: r.memories,
    dropped: r.dropped.map((d) => ({
      ...d,
      preview: d.section === "memories" ? r.memories[d.index]?.content.slice(0, 160) : input ? preview(input[d.index]) : undefined,
    })),
    transformed: r.transformed.map((t) => ({ ...t, preview: input && t.index >= 0 ? preview(input[t.index]) : undefined })),
    strategy: r.strategy,
    historySource: r.history_source,
    model: r.model,
    encoding: r.encoding,
    exact: r.exact,
    approximate: r.approximate,
    retrievalId: r.retrieval_id,
    ...(r.auto_context ? { autoContext: r.auto_context } : {}),
  };
}

/** /window reports one total: sections are leading system / history / temporary, split by characters. */
export function fromWindow(r: WindowResult, input: RoleMessage[], reservedOutput: number, temporaryCount: number, exact: boolean): InspectResult {
  const n = r.messages.length;
  const sections: SectionName[] = r.messages.map((m, i) => {
    if (i >= n - temporaryCount) return "temporary";
    if (m.role === "system" && r.messages.slice(0, i).every((x) => x.role === "system") && !isSummary(m)) return "system";
    return "history";
  });
  const chars = { system: 0, history: 0, temporary: 0 };
  r.messages.forEach((m, i) => {
    const s = sections[i] as keyof typeof chars;
    chars[s] += textOf(m).length + 12 + (m.tool_calls ?? []).reduce((a, c) => a + c.name.length + c.arguments.length, 0);
  });
  const allChars = chars.system + chars.history + chars.temporary || 1;
  const system = Math.round((r.total_tokens * chars.system) / allChars);
  const temporary = Math.round((r.total_tokens * chars.temporary) / allChars);
  const history = r.total_tokens - system - temporary;
  const free = Math.max(0, r.context_window - reservedOutput - r.total_tokens);
  return {
    endpoint: "window",
    messages: r.messages,
    sections,
    budget: { system, memories: 0, history, query: 0, temporary, reserved_output: reservedOutput, free, context_window: r.context_window, total: r.total_tokens },
    budgetApproximate: sections.some((s) => s !== "history"),
    fits: r.total_tokens + reservedOutput <= r.context_window,
    memories: [],
    dropped: r.dropped.map((d) => ({ ...d, section: "history" as const, preview: preview(input[d.index]) })),
    transformed: r.transformed.map((t) => ({ ...t, preview: t.index >= 0 ? preview(input[t.index]) : undefined })),
    strategy: { type: "", ...(r.triggered !== undefined ? { triggered: r.triggered } : {}) },
    historySource: "inline",
    model: r.model,
    encoding: r.encoding,
    exact,
    approximate: r.approximate,
    retrievalId: null,
    ...(r.auto_context ? { autoContext: r.auto_context } : {}),
  };
}

// ---------------------------------------------------------------------------------
// Message details

const OFFLOADED = /^\[Offloaded (\d+) tokens; ref ([0-9a-f-]{36})\]/i;

/** AgentScope's marker (auto_context): the original is stored under the uuid. */
const CONTEXT_OFFLOAD = /<!-- CONTEXT_OFFLOAD: uuid=([0-9a-f-]{36}) -->/i;

/** The stored original behind a message: summary_buffer's "[Offloaded …]" or auto_context's tag (tokens unknown: 0). */
export function offloadedRef(m: RoleMessage): { ref: string; tokens: number } | null {
  if (typeof m.content !== "string") return null;
  const match = OFFLOADED.exec(m.content);
  if (match) return { ref: match[2], tokens: Number(match[1]) };
  const tag = CONTEXT_OFFLOAD.exec(m.content);
  return tag ? { ref: tag[1], tokens: 0 } : null;
}

export function isSummary(m: RoleMessage): boolean {
  return m.role === "system" && typeof m.content === "string" && /^(Extractive summary|Summary) of the earlier conversation/.test(m.content);
}

/** A stable identity for comparing two final prompts: role, content and tool calls (offload refs are random: masked). */
// Keys of message objects already keyed: an answer's messages are not changed once fetched, and
// the replay's scrubber diffs each turn's prompt twice (against the turn before and the one after),
// each key being two regular expressions over a message's whole text.
const keyOf = new WeakMap<RoleMessage, string>();

export function messageKey(m: RoleMessage): string {
  const known = keyOf.get(m);
  if (known !== undefined) return known;
  const content = textOf(m)
    .replace(/ref [0-9a-f-]{36}/gi, "ref ·")
    .replace(/uuid=[0-9a-f-]{36}/gi, "uuid=·");
  const key = JSON.stringify([m.role, content, m.tool_call_id ?? "", (m.tool_calls ?? []).map((c) => [c.name, c.arguments])]);
  keyOf.set(m, key);
  return key;
}

export type DiffMark = "both" | "only";

/** For each message of `a` and `b`: present in both (as a multiset, by content) or only in one. */
export function diffMessages(a: RoleMessage[], b: RoleMessage[]): { a: DiffMark[]; b: DiffMark[]; onlyA: number; onlyB: number } {
  const count = (list: RoleMessage[]) => {
    const m = new Map<string, number>();
    for (const x of list) {
      const k = messageKey(x);
      m.set(k, (m.get(k) ?? 0) + 1);
    }
    return m;
  };
  const mark = (list: RoleMessage[], other: Map<string, number>) => {
    const left = new Map(other);
    return list.map((x) => {
      const k = messageKey(x);
      const n = left.get(k) ?? 0;
      if (n > 0) {
        left.set(k, n - 1);
        return "both" as const;
      }
      return "only" as const;
    });
  };
  const ma = mark(a, count(b));
  const mb = mark(b, count(a));
  return { a: ma, b: mb, onlyA: ma.filter((x) => x === "only").length, onlyB: mb.filter((x) => x === "only").length };
}

// ---------------------------------------------------------------------------------
// Export

type OpenAIPart = { type: "text"; text: string } | { type: "image_url"; image_url: { url: string } };
export type OpenAIMessage =
  | { role: "system" | "user"; content: string | OpenAIPart[]; name?: string }
  | { role: "assistant"; content: string | null; tool_calls?: { id: string; type: "function"; function: { name: string; arguments: string } }[]; name?: string }
  | { role: "tool"; content: string; tool_call_id: string };

/** The final prompt as the `messages` of an OpenAI chat.completions request. */
export function toOpenAI(messages: RoleMessage[]): OpenAIMessage[] {
  return messages.map((m) => {
    if (m.role === "tool") return { role: "tool", content: textOf(m), tool_call_id: m.tool_call_id ?? "" };
    if (m.role === "assistant") {
      const text = textOf(m);
      return {
        role: "assistant",
        content: text || (m.tool_calls?.length ? null : ""),
        ...(m.tool_calls?.length ? { tool_calls: m.tool_calls.map((c) => ({ id: c.id, type: "function" as const, function: { name: c.name, arguments: c.arguments } })) } : {}),
        ...(m.name ? { name: m.name } : {}),
      };
    }
    const content: string | OpenAIPart[] =
      typeof m.content === "string"
        ? m.content
        : m.content.map((p): OpenAIPart => (p.type === "text" ? { type: "text", text: p.text } : p.type === "image" && p.url ? { type: "image_url", image_url: { url: p.url } } : { type: "text", text: `[${p.type}${p.url ? ` ${p.url}` : ""}]` }));
    return { role: m.role, content, ...(m.name ? { name: m.name } : {}) };
  });
}

// ---------------------------------------------------------------------------------
// Sample

/** A realistic agent conversation: a tool call and its result, then a long document answer. */
export function sampleMessages(): RoleMessage[] {
  const itinerary = Array.from(
    { length: 14 },
    (_, i) =>
      `Day ${i + 1}: ${["Alfama walk and the Castelo de São Jorge", "Belém: the tower, the monastery and pastéis", "Sintra day trip: Pena Palace and Quinta da Regaleira", "LX Factory and the Time Out Market", "Cascais by train, beach afternoon", "Gulbenkian museum, evening fado in Mouraria", "Bairro Alto and the Miradouro de São Pedro de Alcântara"][i % 7]}. Budget about €${80 + (i % 4) * 15}; book ahead where noted.`,
  ).join("\n");
  return [
    { role: "system", content: "You are a travel assistant. Be concise. Use the tools when the user asks about prices or the weather." },
    { role: "user", content: "I'm going to Lisbon from 12 to 16 October. What's the weather usually like?" },
    { role: "assistant", content: "Mid-October in Lisbon is mild: highs around 22 °C, lows around 15 °C, and a few rainy days. Pack a light jacket." },
    { role: "user", content: "Can you check the forecast for the 12th?" },
    {
      role: "assistant",
      content: "",
      tool_calls: [{ id: "call_weather_1", name: "get_forecast", arguments: JSON.stringify({ city: "Lisbon", date: "2026-10-12", units: "metric" }) }],
    },
    {
      role: "tool",
      tool_call_id: "call_weather_1",
      content: JSON.stringify({ city: "Lisbon", date: "2026-10-12", high_c: 23, low_c: 16, rain_probability: 0.2, wind_kmh: 14, summary: "Partly cloudy" }),
    },
    { role: "assistant", content: "The 12th looks partly cloudy, 16–23 °C, with a 20% chance of rain. A good day for Alfama." },
    { role: "user", content: "My budget is €1,200 for everything except flights. Is that realistic?" },
    { role: "assistant", content: "Yes. Four nights in a mid-range guesthouse is about €500, food €200–250, transport and sights €150. That leaves a cushion of about €300." },
    { role: "user", content: "Great. Write me a day-by-day plan I can print, two weeks just in case I extend." },
    { role: "assistant", content: `Here is a printable plan:\n${itinerary}\n\nTips: buy a Viva Viagem card for the metro and trams; tram 28 is busiest mid-morning.` },
    { role: "user", content: "Thanks! Which day would you move if it rains?" },
    { role: "assistant", content: "Swap the Cascais beach day with the Gulbenkian museum day: the museum is indoors and the train to Cascais runs every 20 minutes whenever the sun is back." },
  ];
}

export const SAMPLE_TEMPORARY: RoleMessage[] = [{ role: "user", content: "(context for this call only) The user is on a phone; keep the answer under 80 words." }];
