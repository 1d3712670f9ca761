import type { RoleMessage } from "../schemas";

// AgentScope's message model, as far as AutoContextMemory looks at it: a role, a
// name and content blocks. Memscope's OpenAI-shaped messages map onto it one to one
// (an assistant message's tool_calls become tool-use blocks, a tool message one
// tool-result block), and back.

export type AsRole = "USER" | "ASSISTANT" | "SYSTEM" | "TOOL";

export type AsBlock =
  | { type: "text"; text: string }
  /** input: the parsed arguments when they are a JSON object; raw: the arguments otherwise. */
  | { type: "tool_use"; id: string; name: string; input: Record<string, unknown> | null; raw: string | null; args: string }
  | { type: "tool_result"; id: string; name: string; output: string[] }
  | { type: "other"; kind: string };

/** AgentScope's `_compress_meta`: present on every message a strategy wrote. */
export type CompressMeta = { offloadUuid?: string; currentRound?: boolean };

export type AsMsg = {
  role: AsRole;
  name: string;
  content: AsBlock[];
  compress?: CompressMeta;
  /** The input message this is, unchanged (kept for identity and output), or null for one a strategy wrote. */
  source: RoleMessage | null;
  /** Index of the input message, or -1 for one a strategy wrote. */
  index: number;
};

const ROLE: Record<RoleMessage["role"], AsRole> = { user: "USER", assistant: "ASSISTANT", system: "SYSTEM", tool: "TOOL" };

function parseInput(args: string): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(args);
    return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/**
 * Names count in AgentScope's token estimate. Without an explicit `name`, a message
 * gets its role's usual name; a tool result the name of the tool it answers.
 */
export function fromRoleMessages(messages: RoleMessage[]): AsMsg[] {
  const toolNames = new Map<string, string>();
  return messages.map((m, index) => {
    const content: AsBlock[] = [];
    if (m.role === "tool") {
      const name = toolNames.get(m.tool_call_id ?? "") ?? m.name ?? "tool";
      const output = typeof m.content === "string" ? [m.content] : m.content.filter((p) => p.type === "text").map((p) => (p as { text: string }).text);
      content.push({ type: "tool_result", id: m.tool_call_id ?? "", name, output });
      return { role: "TOOL", name: m.name ?? name, content, source: m, index };
    }
    if (typeof m.content === "string") {
      if (m.content !== "" || !m.tool_calls?.length) content.push({ type: "text", text: m.content });
    } else {
      for (const p of m.content) content.push(p.type === "text" ? { type: "text", text: p.text } : { type: "other", kind: p.type });
    }
    for (const c of m.tool_calls ?? []) {
      toolNames.set(c.id, c.name);
      const input = parseInput(c.arguments);
      content.push({ type: "tool_use", id: c.id, name: c.name, input, raw: input || c.arguments === "" ? null : c.arguments, args: c.arguments });
    }
    return { role: ROLE[m.role], name: m.name ?? m.role, content, source: m, index };
  });
}

/** Back to the OpenAI shape: an unchanged message is its input object. */
export function toRoleMessage(msg: AsMsg): RoleMessage {
  if (msg.source) return msg.source;
  const result = msg.content.find((b) => b.type === "tool_result");
  if (msg.role === "TOOL" && result?.type === "tool_result") return { role: "tool", tool_call_id: result.id, content: result.output.join("\n") };
  const uses = msg.content.filter((b) => b.type === "tool_use");
  const role = msg.role.toLowerCase() as RoleMessage["role"];
  return {
    role,
    content: textContent(msg),
    ...(uses.length ? { tool_calls: uses.map((u) => ({ id: u.id, name: u.name, arguments: u.args })) } : {}),
  };
}

// Messages are never changed in place (a strategy writes a new one): per-object caches hold.
const texts = new WeakMap<AsMsg, string>();

/** Msg.getTextContent: the top-level text blocks, joined by newlines. */
export function textContent(msg: AsMsg): string {
  let t = texts.get(msg);
  if (t === undefined) {
    t = "";
    let first = true;
    for (const b of msg.content) {
      if (b.type !== "text") continue;
      t = first ? b.text : `${t}\n${b.text}`;
      first = false;
    }
    texts.set(msg, t);
  }
  return t;
}

export const hasToolUse = (msg: AsMsg) => msg.content.some((b) => b.type === "tool_use");
export const hasToolResult = (msg: AsMsg) => msg.content.some((b) => b.type === "tool_result");

/** MsgUtils.isToolMessage: tool role, or any tool-use or tool-result block. */
export const isToolMessage = (msg: AsMsg) => msg.role === "TOOL" || hasToolUse(msg) || hasToolResult(msg);
/** MsgUtils.isToolUseMessage: an assistant message that calls tools. */
export const isToolUseMessage = (msg: AsMsg) => msg.role === "ASSISTANT" && hasToolUse(msg);
export const isToolResultMessage = (msg: AsMsg) => msg.role === "TOOL" || hasToolResult(msg);
export const isCompressedMessage = (msg: AsMsg) => msg.compress !== undefined;

/** MsgUtils.isFinalAssistantResponse: an assistant answer, not a tool call and not a compressed current round. */
export function isFinalAssistantResponse(msg: AsMsg): boolean {
  if (msg.role !== "ASSISTANT") return false;
  if (msg.compress?.currentRound) return false;
  return !hasToolUse(msg) && !hasToolResult(msg);
}

/** MsgUtils.calculateMessageCharCount: text, tool names, ids, arguments as JSON, result texts. */
export function charCount(msg: AsMsg): number {
  let n = 0;
  for (const b of msg.content) {
    if (b.type === "text") n += b.text.length;
    else if (b.type === "tool_use") {
      n += b.name.length + b.id.length;
      if (b.input && Object.keys(b.input).length) n += JSON.stringify(b.input).length;
      if (b.raw !== null) n += b.raw.length;
    } else if (b.type === "tool_result") {
      n += b.name.length + b.id.length;
      for (const t of b.output) n += t.length;
    }
  }
  return n;
}

export const charCountOf = (msgs: AsMsg[]) => msgs.reduce((n, m) => n + charCount(m), 0);

/** The tool-result output texts joined by newlines (what a tool message's size is judged by). */
export function firstResultText(msg: AsMsg): string | null {
  const r = msg.content.find((b) => b.type === "tool_result");
  return r?.type === "tool_result" ? r.output.join("\n") : null;
}

// AgentScope's plan-notebook tools, left out of what is sent to the summarizer.
const PLAN_TOOLS = new Set([
  "create_plan",
  "update_plan_info",
  "revise_current_plan",
  "update_subtask_state",
  "finish_subtask",
  "view_subtasks",
  "get_subtask_count",
  "finish_plan",
  "view_historical_plans",
  "recover_historical_plan",
]);

/** MsgUtils.filterPlanRelatedToolCalls: drops calls made only of plan tools, and their results. */
export function withoutPlanToolCalls(msgs: AsMsg[]): AsMsg[] {
  const planIds = new Set<string>();
  for (const m of msgs) if (m.role === "ASSISTANT") for (const b of m.content) if (b.type === "tool_use" && PLAN_TOOLS.has(b.name)) planIds.add(b.id);
  if (!planIds.size) return msgs;
  return msgs.filter((m) => {
    if (m.role === "ASSISTANT") {
      const uses = m.content.filter((b) => b.type === "tool_use");
      if (uses.length && uses.every((u) => PLAN_TOOLS.has(u.name))) return false;
    }
    if (m.role === "TOOL" && m.content.some((b) => b.type === "tool_result" && planIds.has(b.id))) return false;
    return true;
  });
}
