// The prompt inspector's shared links: everything a view needs, in a short query string.
// Defaults are left out; values read back are checked against the API's bounds and a bad
// one falls back to its default. Strategy parameters carry the side they belong to:
// `a.max_token_limit=800`, `b.last_keep=4`. Only the parameters of each side's selected
// type travel (the draft keeps the others for switching back, a link does not need them).
//
// Left out on purpose: pasted messages and temporary messages (too long), the system
// prompt and queries over 300 characters, and "dry run" (a shared link runs itself and
// always as a dry run, so opening it never counts as an access of anyone's memories).
import { MEMORY_TYPE_LIST } from "./memory-format";
import { DEFAULT_MEMORY, defaultDraft, isStrategyType, type InspectSource, type MemoryFormat, type MemoryOptions, type StrategyDraft, type StrategyType } from "./inspect-model";

export const DEFAULT_MODEL = "gpt-4o";
export const DEFAULT_RESERVED_OUTPUT = 1024;
/** Longer texts (query, system_message) are not put in links. */
export const MAX_LINK_TEXT = 300;

type Spec =
  | { kind: "int"; min: number; max: number }
  | { kind: "ratio" } // 0 < x <= 1
  | { kind: "bool" }
  | { kind: "text" }
  | { kind: "choice"; values: string[] };

type Specs<T extends StrategyType> = { [K in keyof StrategyDraft[T]]: Spec };

const int = (min: number, max: number): Spec => ({ kind: "int", min, max });
const bool: Spec = { kind: "bool" };

/** The bounds of lib/strategies/schemas.ts, per strategy type. */
export const STRATEGY_PARAMS: { [T in StrategyType]: Specs<T> } = {
  token_buffer: { max_token_limit: int(0, 10_000_000), include_tools: bool },
  message_window: {
    max_attached_message_count: int(1, 100_000),
    history_message_truncate_enable: bool,
    history_message_truncate_length: int(0, 1_000_000),
    system_message: { kind: "text" },
    include_tools: bool,
  },
  auto_context: {
    msg_threshold: int(1, 1_000_000),
    token_ratio: { kind: "ratio" },
    max_token: int(1, 100_000_000),
    last_keep: int(0, 1_000_000),
    large_payload_threshold: int(0, 100_000_000),
    offload_single_preview: int(0, 1_000_000),
    min_consecutive_tool_messages: int(0, 1_000_000),
    min_compression_token_threshold: int(0, 100_000_000),
    current_round_compression_ratio: { kind: "ratio" },
    steps: int(1, 50),
    hook_wiring: { kind: "choice", values: ["1.0", "1.1"] },
    summarizer: { kind: "choice", values: ["auto", "placeholder"] },
  },
  summary_buffer: {
    msg_threshold: int(1, 100_000),
    token_ratio: { kind: "ratio" },
    last_keep: int(0, 100_000),
    offload_tokens: int(50, 1_000_000),
    include_tools: bool,
  },
  langchain_trim: {
    max_tokens: int(0, 100_000_000),
    strategy: { kind: "choice", values: ["first", "last"] },
    include_system: bool,
    start_on: { kind: "text" },
    end_on: { kind: "text" },
    allow_partial: bool,
    token_counter: { kind: "choice", values: ["messages", "chars", "words", "model"] },
  },
  llamaindex_buffer: { token_limit: int(0, 100_000_000), initial_token_count: int(0, 100_000_000), context_window: int(0, 100_000_000) },
  llamaindex_memory: { token_limit: int(0, 100_000_000), short_term_token_limit_ratio: { kind: "ratio" }, context_window: int(0, 100_000_000) },
  mastra_last_messages: { last_messages: int(0, 1_000_000) },
};

type Value = number | boolean | string;

function valid(spec: Spec, v: Value): boolean {
  switch (spec.kind) {
    case "int":
      return typeof v === "number" && Number.isInteger(v) && v >= spec.min && v <= spec.max;
    case "ratio":
      return typeof v === "number" && Number.isFinite(v) && v > 0 && v <= 1;
    case "bool":
      return typeof v === "boolean";
    case "text":
      return typeof v === "string" && v.trim() !== "" && v.length <= MAX_LINK_TEXT;
    case "choice":
      return typeof v === "string" && spec.values.includes(v);
  }
}

function encodeValue(v: Value): string {
  return typeof v === "boolean" ? (v ? "1" : "0") : String(v);
}

/** The value of `raw` under `spec`, or undefined when it is not one. */
function decodeValue(spec: Spec, raw: string): Value | undefined {
  let v: Value | undefined;
  if (spec.kind === "bool") v = raw === "1" || raw === "true" ? true : raw === "0" || raw === "false" ? false : undefined;
  else if (spec.kind === "text" || spec.kind === "choice") v = raw;
  else v = raw.trim() === "" ? undefined : Number(raw);
  return v !== undefined && valid(spec, v) ? v : undefined;
}

/** `a.<param>=<value>` for each valid, non-default parameter of the draft's selected type. */
export function encodeStrategyParams(draft: StrategyDraft, side: "a" | "b", qs: URLSearchParams): void {
  const type = draft.type;
  const specs = STRATEGY_PARAMS[type] as Record<string, Spec>;
  const values = draft[type] as Record<string, Value>;
  const defaults = defaultDraft(type)[type] as Record<string, Value>;
  for (const [key, spec] of Object.entries(specs)) {
    const v = values[key];
    if (v !== defaults[key] && valid(spec, v)) qs.set(`${side}.${key}`, encodeValue(v));
  }
}

/** A draft of `type` with the valid `a.*` (or `b.*`) parameters of `sp` applied over the defaults. */
export function parseStrategyParams(sp: URLSearchParams, side: "a" | "b", type: StrategyType): StrategyDraft {
  const draft = defaultDraft(type);
  const specs = STRATEGY_PARAMS[type] as Record<string, Spec>;
  const params: Record<string, Value> = { ...(draft[type] as Record<string, Value>) };
  for (const [key, spec] of Object.entries(specs)) {
    const raw = sp.get(`${side}.${key}`);
    const v = raw === null ? undefined : decodeValue(spec, raw);
    if (v !== undefined) params[key] = v;
  }
  return { ...draft, [type]: params } as StrategyDraft;
}

/** `m.*`: memory injection settings other than dry run. */
function encodeMemory(m: MemoryOptions, qs: URLSearchParams): void {
  if (m.enabled !== DEFAULT_MEMORY.enabled) qs.set("m.enabled", encodeValue(m.enabled));
  if (m.k !== DEFAULT_MEMORY.k && valid(int(1, 100), m.k)) qs.set("m.k", String(m.k));
  if (m.format !== DEFAULT_MEMORY.format) qs.set("m.format", m.format);
  const types = MEMORY_TYPE_LIST.filter((t) => m.types.includes(t));
  if (types.length) qs.set("m.types", types.join(","));
  const min = m.minScore.trim();
  if (min !== "" && Number.isFinite(Number(min)) && Math.abs(Number(min)) <= 10) qs.set("m.min_score", String(Number(min)));
}

function parseMemory(sp: URLSearchParams): MemoryOptions {
  const m: MemoryOptions = { ...DEFAULT_MEMORY, types: [] };
  const enabled = decodeValue(bool, sp.get("m.enabled") ?? "");
  if (enabled !== undefined) m.enabled = enabled as boolean;
  const k = decodeValue(int(1, 100), sp.get("m.k") ?? "");
  if (k !== undefined) m.k = k as number;
  const format = sp.get("m.format");
  if (format === "user_memory" || format === "xml_block") m.format = format satisfies MemoryFormat;
  const types = (sp.get("m.types") ?? "").split(",");
  m.types = MEMORY_TYPE_LIST.filter((t) => types.includes(t));
  const min = sp.get("m.min_score")?.trim() ?? "";
  if (min !== "" && Number.isFinite(Number(min)) && Math.abs(Number(min)) <= 10) m.minScore = String(Number(min));
  return m;
}

/** What a shared link holds. */
export type InspectLinkState = {
  src: Pick<InspectSource, "tab" | "user" | "conversation" | "leaf" | "query" | "memory">;
  draftA: StrategyDraft;
  draftB: StrategyDraft;
  compare: boolean;
  model: string;
  reserved: number;
};

/** The query string (no "?") of a view: short, defaults omitted. */
export function encodeInspectQuery(s: InspectLinkState): string {
  const { src } = s;
  const qs = new URLSearchParams();
  if (src.tab === "paste") qs.set("source", "paste");
  if (src.user) qs.set("user", src.user);
  if (src.tab === "stored" && src.conversation) qs.set("conversation", src.conversation);
  if (src.tab === "stored" && src.conversation && src.leaf) qs.set("leaf", src.leaf);
  if (src.query && src.query.length <= MAX_LINK_TEXT) qs.set("q", src.query);
  qs.set("strategy", s.draftA.type);
  encodeStrategyParams(s.draftA, "a", qs);
  if (s.compare) {
    qs.set("compare", s.draftB.type);
    encodeStrategyParams(s.draftB, "b", qs);
  }
  if (s.model !== DEFAULT_MODEL) qs.set("model", s.model);
  if (s.reserved !== DEFAULT_RESERVED_OUTPUT && valid(int(0, 10_000_000), s.reserved)) qs.set("reserved", String(s.reserved));
  encodeMemory(src.memory, qs);
  return qs.toString();
}

/** A view from a query string; anything missing or invalid is the default. */
export function parseInspectQuery(sp: URLSearchParams): InspectLinkState {
  const typeA = sp.get("strategy");
  const typeB = sp.get("compare");
  const model = sp.get("model")?.trim() ?? "";
  const reserved = decodeValue(int(0, 10_000_000), sp.get("reserved") ?? "");
  return {
    src: {
      tab: sp.get("source") === "paste" ? "paste" : "stored",
      user: sp.get("user") ?? "",
      conversation: sp.get("conversation") ?? "",
      leaf: sp.get("leaf") ?? "",
      query: sp.get("q") ?? "",
      memory: parseMemory(sp),
    },
    draftA: parseStrategyParams(sp, "a", isStrategyType(typeA) ? typeA : "token_buffer"),
    draftB: parseStrategyParams(sp, "b", isStrategyType(typeB) ? typeB : "token_buffer"),
    compare: isStrategyType(typeB),
    model: model && model.length <= 100 ? model : DEFAULT_MODEL,
    reserved: reserved === undefined ? DEFAULT_RESERVED_OUTPUT : (reserved as number),
  };
}
