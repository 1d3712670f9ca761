import { userIdProblem } from "../http/user-id";
import { MAX_TIME_UNIX_NANO, type OtlpAttributes, type OtlpEvent, type OtlpSpan, type OtlpValue } from "./otlp-types";
import type { ChatMessage, ChatPart } from "./captured-shapes";
import { headOf, linkHistory, type HistoryScope } from "./span-history";
import { systemPartsOf } from "./system-instructions";

// A span read as an OpenTelemetry GenAI inference span (semantic conventions, docs/gen-ai/
// gen-ai-spans.md and the JSON schemas gen-ai-input-messages.json / gen-ai-output-messages.json
// / gen-ai-system-instructions.json of open-telemetry/semantic-conventions; the older span
// events from model/gen-ai/deprecated/events-deprecated.yaml). Named in docs/architecture.md.
//
// Three outcomes: a chat to store as a turn; a span capture ignores (anything but a chat:
// HTTP spans, embeddings, tool executions, agent spans), counted by what it was; a chat span
// whose content cannot be read, rejected with the field that is wrong. No I/O; given the
// process's span histories (span-history.ts), an input that continues a kept one is parsed
// from where that one ended, with the same result.

/** The operations that send a prompt and get an answer (gen_ai.operation.name). */
export const CHAT_OPERATIONS = ["chat", "generate_content", "text_completion"] as const;

export type { ChatMessage, ChatPart } from "./captured-shapes";

export type CapturedChat = {
  traceId: string;
  spanId: string;
  path: string;
  operation: string;
  provider: string | null;
  requestModel: string | null;
  responseModel: string | null;
  /** gen_ai.conversation.id as sent; null: the span's trace is its conversation. */
  conversationKey: string | null;
  appId: string;
  endUserId: string | null;
  /** attributes: gen_ai.input.messages / gen_ai.output.messages; events: the older span events; logs: GenAI log events joined to the span. */
  messageForm: "attributes" | "events" | "logs" | "ai_sdk";
  systemInstructions: ChatPart[] | null;
  /** Exactly as sent, in order (the events form turned into the same shape). */
  inputMessages: ChatMessage[];
  outputMessages: ChatMessage[];
  inputTokens: number | null;
  outputTokens: number | null;
  startedAt: Date;
  endedAt: Date;
  /** The turn's texts: what the agent added since the model last answered, and the answer. */
  query: string;
  answer: string;
  toolCalls: { id: string | null; name: string; arguments: string }[];
  /** Set when stored without a conversation id: the digest a later call of the conversation begins with (store-captures.ts). */
  stateKey?: string | null;
  /** Set with stateKey: the digest of the input up to its last answer, the predecessor's stateKey (store-captures.ts). */
  predKey?: string | null;
  /** Set with predKey: no stored call has that state yet (the call is indexed by predKey until adopted). */
  awaitingPred?: boolean;
};

export type SpanReading =
  | { kind: "chat"; chat: CapturedChat }
  | { kind: "ignored"; what: string }
  | { kind: "rejected"; field: string; problem: string }
  /** A chat span without content: instrumentations such as @opentelemetry/instrumentation-openai send it as log events (POST /logs). */
  | { kind: "awaiting_logs" };

class SpanProblem extends Error {
  constructor(
    readonly field: string,
    readonly problem: string,
  ) {
    super(problem);
  }
}

const text = (v: OtlpValue | undefined): string | null => (typeof v === "string" && v.trim() ? v : null);
const int = (v: OtlpValue | undefined): number | null => (typeof v === "number" && Number.isInteger(v) && v >= 0 ? v : null);
const isObj = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Nesting a structured attribute may have (the messages' JSON): deeper, the span is rejected (recursive code would overflow the stack). */
export const MAX_JSON_DEPTH = 64;

/** A span time: 0 is unset (the fallback); outside fixed64 (a JSON number such as 1e21 or 1e300, or negative) the span is rejected. */
function nsToDate(ns: bigint, fallback: Date, field: string): Date {
  if (ns === 0n) return fallback;
  if (ns < 0n || ns > MAX_TIME_UNIX_NANO) throw new SpanProblem(field, "must be nanoseconds since 1970 within fixed64 (0 to 18446744073709551615)");
  return new Date(Number(ns / 1_000_000n));
}

/** Whether a parsed JSON value nests deeper than `max`: an explicit stack, so any depth is safe to ask about. */
export function nestsDeeperThan(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== "object") continue;
    if (depth >= max) return true;
    for (const x of Array.isArray(v) ? v : Object.values(v)) if (x !== null && typeof x === "object") stack.push([x, depth + 1]);
  }
  return false;
}

export function readGenAiSpan(span: OtlpSpan, resource: OtlpAttributes, receivedAt: Date, logEvents?: OtlpEvent[], history?: HistoryScope): SpanReading {
  const a = span.attributes;
  if (span.problem) return { kind: "rejected", field: span.problem.field, problem: span.problem.message };
  // The Vercel AI SDK's own spans name no gen_ai.operation.name: its model calls carry ai.prompt.messages.
  if (a["gen_ai.operation.name"] === undefined && a["ai.prompt.messages"] !== undefined) return readAiSdkSpan(span, resource, receivedAt);
  const op = text(a["gen_ai.operation.name"]);
  if (!op) return { kind: "ignored", what: Object.keys(a).some((k) => k.startsWith("gen_ai.")) ? "gen_ai span without gen_ai.operation.name" : "not a GenAI span" };
  if (!(CHAT_OPERATIONS as readonly string[]).includes(op)) return { kind: "ignored", what: `gen_ai.operation.name=${op}` };
  if (!logEvents && a["gen_ai.input.messages"] === undefined && !span.events.some((e) => EVENT_ROLES[e.name])) return { kind: "awaiting_logs" };
  try {
    if (logEvents) return { kind: "chat", chat: { ...readChat(withLogEvents(span, logEvents), resource, op, receivedAt), messageForm: "logs" } };
    return { kind: "chat", chat: readChat(span, resource, op, receivedAt, history) };
  } catch (e) {
    if (e instanceof SpanProblem) return { kind: "rejected", field: e.field, problem: e.problem };
    throw e;
  }
}

function readChat(span: OtlpSpan, resource: OtlpAttributes, operation: string, receivedAt: Date, history?: HistoryScope): CapturedChat {
  const a = span.attributes;
  const attr = (key: string) => `${span.path}.attributes[${key}]`;
  let form: CapturedChat["messageForm"] = "attributes";
  let input: ChatMessage[];
  let output: ChatMessage[];
  let system: ChatPart[] | null = null;
  if (a["gen_ai.input.messages"] !== undefined) {
    input = inputMessages(a["gen_ai.input.messages"], attr("gen_ai.input.messages"), history);
    output = a["gen_ai.output.messages"] === undefined ? [] : messages(a["gen_ai.output.messages"], attr("gen_ai.output.messages"));
    const sys = a["gen_ai.system_instructions"];
    // The same instructions every call: parsed once (system-instructions.ts).
    if (sys !== undefined) system = systemPartsOf(sys, () => parts(jsonValue(sys, attr("gen_ai.system_instructions")), attr("gen_ai.system_instructions")));
  } else {
    const fromEvents = eventMessages(span.events, span.path);
    if (!fromEvents.input.length) {
      throw new SpanProblem(
        attr("gen_ai.input.messages"),
        "a chat span without its input messages (neither gen_ai.input.messages nor gen_ai.*.message events): turn on the instrumentation's content capture",
      );
    }
    form = "events";
    input = fromEvents.input;
    output = fromEvents.output;
  }
  const answerMessage = output[0];
  const startedAt = nsToDate(span.startTimeUnixNano, receivedAt, `${span.path}.startTimeUnixNano`);
  const endedAt = nsToDate(span.endTimeUnixNano, startedAt, `${span.path}.endTimeUnixNano`);
  const userKey = text(a["user.id"]) !== null ? "user.id" : text(resource["user.id"]) !== null ? "resource user.id" : text(a["enduser.id"]) !== null ? "enduser.id" : null;
  const endUserId = userKey === null ? null : text(userKey === "user.id" ? a["user.id"] : userKey === "enduser.id" ? a["enduser.id"] : resource["user.id"])!;
  // The one user id rule (lib/http/user-id.ts): an id no route could address rejects the span (storing it under another id would misfile the person).
  const userProblem = endUserId === null ? null : userIdProblem(endUserId);
  if (userProblem) throw new SpanProblem(userKey === "resource user.id" ? `${span.path.replace(/\.scopeSpans.*/, "")}.resource.attributes[user.id]` : attr(userKey!), `not a usable user id: ${userProblem}`);
  return {
    traceId: span.traceId,
    spanId: span.spanId,
    path: span.path,
    operation,
    provider: text(a["gen_ai.provider.name"]) ?? text(a["gen_ai.system"]),
    requestModel: text(a["gen_ai.request.model"]),
    responseModel: text(a["gen_ai.response.model"]),
    conversationKey: text(a["gen_ai.conversation.id"]),
    appId: (text(a["memscope.app_id"]) ?? text(resource["memscope.app_id"]) ?? text(resource["service.name"]) ?? "otel").slice(0, 200),
    endUserId,
    messageForm: form,
    systemInstructions: system,
    inputMessages: input,
    outputMessages: output,
    inputTokens: int(a["gen_ai.usage.input_tokens"]),
    outputTokens: int(a["gen_ai.usage.output_tokens"]),
    startedAt,
    endedAt,
    query: newInput(input),
    answer: answerMessage ? messageText(answerMessage) : "",
    toolCalls: answerMessage ? toolCalls(answerMessage) : [],
  };
}

/** An attribute that holds structured data: as a structured value, or a JSON string (what SDKs without maps, such as JS, send). */
function jsonValue(v: OtlpValue, field: string): unknown {
  if (typeof v !== "string") return v;
  let parsed: unknown;
  try {
    parsed = JSON.parse(v);
  } catch {
    throw new SpanProblem(field, "not valid JSON");
  }
  // JSON.parse takes any depth; what reads the value afterwards (JSON.stringify, the checks) recurses.
  if (nestsDeeperThan(parsed, MAX_JSON_DEPTH)) throw new SpanProblem(field, `nested deeper than ${MAX_JSON_DEPTH} levels`);
  return parsed;
}

function messages(v: OtlpValue, field: string): ChatMessage[] {
  const value = jsonValue(v, field);
  if (!Array.isArray(value)) throw new SpanProblem(field, "must be an array of messages");
  return messageList(value, field);
}

function messageList(value: unknown[], field: string): ChatMessage[] {
  return value.map((m, i) => {
    if (!isObj(m)) throw new SpanProblem(`${field}[${i}]`, "must be an object");
    if (typeof m.role !== "string" || !m.role) throw new SpanProblem(`${field}[${i}].role`, "must be a non-empty string");
    return { ...m, role: m.role, parts: parts(m.parts, `${field}[${i}].parts`) };
  });
}

/**
 * gen_ai.input.messages, from where a kept input of the same history ended when the text
 * begins with it (span-history.ts): its messages and the ones after it, parsed alone. Whatever
 * the rest holds that is not one or more valid messages (or the same list again) reads the text
 * whole, so a problem is reported as the full reading reports it.
 */
function inputMessages(v: OtlpValue, field: string, history?: HistoryScope): ChatMessage[] {
  if (!history || typeof v !== "string") return messages(v, field);
  const hit = history.histories.find(history.scope, v);
  if (hit) {
    if (hit.same) {
      if (!v.slice(hit.rest).trim()) {
        const input = [...hit.entry.messages];
        linkHistory(input, { own: hit.entry, base: hit.entry });
        history.histories.hits++;
        return input;
      }
    } else {
      const more = restMessages(v.slice(hit.rest), field);
      if (more) {
        const input = [...hit.entry.messages, ...more];
        linkHistory(input, { own: { scope: history.scope, head: headOf(v), messages: input }, base: hit.entry });
        history.histories.hits++;
        return input;
      }
    }
  }
  const input = messages(v, field);
  history.histories.misses++;
  if (input.length) linkHistory(input, { own: { scope: history.scope, head: headOf(v), messages: input }, base: null });
  return input;
}

/**
 * The messages after a comma that follows a complete message: `rest` ends the array. Read as
 * "[" + rest, which parses exactly when the whole text does (JSON's array grammar after a
 * value and a comma), except "[]": no message after the comma is invalid JSON. Null: read whole.
 */
function restMessages(rest: string, field: string): ChatMessage[] | null {
  let value: unknown;
  try {
    value = JSON.parse(`[${rest}`);
  } catch {
    return null;
  }
  if (!Array.isArray(value) || !value.length || nestsDeeperThan(value, MAX_JSON_DEPTH)) return null;
  try {
    return messageList(value, field);
  } catch (e) {
    if (e instanceof SpanProblem) return null;
    throw e;
  }
}

function parts(v: unknown, field: string): ChatPart[] {
  if (!Array.isArray(v)) throw new SpanProblem(field, "must be an array of parts");
  return v.map((p, i) => {
    if (!isObj(p) || typeof p.type !== "string") throw new SpanProblem(`${field}[${i}].type`, "every part needs a type");
    return p as ChatPart;
  });
}

/** The text of a message: its text parts, and what a tool answered, one after another. */
export function messageText(m: ChatMessage): string {
  return m.parts
    .map((p) => {
      if (p.type === "text" && typeof p.content === "string") return p.content;
      if (p.type === "tool_call_response") return typeof p.response === "string" ? p.response : JSON.stringify(p.response ?? null);
      return null;
    })
    .filter((s): s is string => s !== null)
    .join("\n");
}

function toolCalls(m: ChatMessage): CapturedChat["toolCalls"] {
  return m.parts
    .filter((p) => p.type === "tool_call" && typeof p.name === "string")
    .map((p) => ({
      id: typeof p.id === "string" ? p.id : null,
      name: p.name as string,
      arguments: typeof p.arguments === "string" ? p.arguments : JSON.stringify(p.arguments ?? null),
    }));
}

/** What the agent added after the model's last answer (the user's message, or tool results): the turn's query. */
function newInput(input: ChatMessage[]): string {
  let start = input.length;
  while (start > 0 && input[start - 1].role !== "assistant" && input[start - 1].role !== "system") start--;
  return input
    .slice(start)
    .map(messageText)
    .filter((t) => t !== "")
    .join("\n\n");
}

// --- the older form: one span event per message (gen_ai.user.message, ...) and per choice (gen_ai.choice) ---

const EVENT_ROLES: Record<string, string> = {
  "gen_ai.system.message": "system",
  "gen_ai.user.message": "user",
  "gen_ai.assistant.message": "assistant",
  "gen_ai.tool.message": "tool",
};

function eventMessages(events: OtlpEvent[], spanPath: string): { input: ChatMessage[]; output: ChatMessage[] } {
  const input: ChatMessage[] = [];
  const choices: { index: number; message: ChatMessage }[] = [];
  events.forEach((e, i) => {
    const path = `${spanPath}.events[${i}]`;
    if (EVENT_ROLES[e.name]) {
      input.push(eventMessage(e.attributes, EVENT_ROLES[e.name], path));
    } else if (e.name === "gen_ai.choice") {
      const a = e.attributes;
      const message = a.message === undefined ? {} : jsonValue(a.message, `${path}.attributes[message]`);
      if (!isObj(message)) throw new SpanProblem(`${path}.attributes[message]`, "must be an object");
      // tool_calls sit in the message (conventions) or beside it (some instrumentations).
      const merged = { ...message, ...(message.tool_calls === undefined && a.tool_calls !== undefined ? { tool_calls: a.tool_calls } : {}) };
      const m = eventMessage(merged as OtlpAttributes, "assistant", `${path}.attributes[message]`);
      if (typeof a.finish_reason === "string") m.finish_reason = a.finish_reason;
      choices.push({ index: int(a.index) ?? choices.length, message: m });
    }
  });
  return { input, output: choices.sort((x, y) => x.index - y.index).map((c) => c.message) };
}

function eventMessage(a: OtlpAttributes, defaultRole: string, path: string): ChatMessage {
  const role = text(a.role) ?? defaultRole;
  const out: ChatPart[] = [];
  const content = a.content;
  if (role === "tool") {
    out.push({ type: "tool_call_response", id: text(a.id), response: content ?? null });
  } else if (typeof content === "string") {
    out.push({ type: "text", content });
  } else if (content !== undefined && content !== null) {
    out.push({ type: "text", content: JSON.stringify(content) });
  }
  if (a.tool_calls !== undefined && a.tool_calls !== null) {
    const calls = jsonValue(a.tool_calls, `${path}.tool_calls`);
    if (!Array.isArray(calls)) throw new SpanProblem(`${path}.tool_calls`, "must be an array");
    calls.forEach((c, i) => {
      const fn = isObj(c) && isObj(c.function) ? c.function : null;
      if (!fn || typeof fn.name !== "string") throw new SpanProblem(`${path}.tool_calls[${i}].function.name`, "must be a string");
      out.push({ type: "tool_call", id: isObj(c) && typeof c.id === "string" ? c.id : null, name: fn.name, arguments: fn.arguments ?? null });
    });
  }
  return { role, parts: out };
}

// --- GenAI log events (OTLP logs joined to their span by trace and span id) ---

/** The newer conventions' single event: its attributes hold gen_ai.input.messages / output / system_instructions. */
export const DETAILS_EVENT = "gen_ai.client.inference.operation.details";

/** Whether a log record's event name is one capture reads. */
export const isGenAiLogEvent = (name: string) => name === DETAILS_EVENT || name === "gen_ai.choice" || name in EVENT_ROLES;

/**
 * A log record as the span event it stands for. The older events carry their fields in the
 * body ({content, tool_calls, id}; the choice {index, finish_reason, message}), where span
 * events carried them in attributes: the body's fields are laid over the attributes.
 */
export function logRecordAsEvent(name: string, timeUnixNano: bigint, attributes: OtlpAttributes, body: OtlpValue): OtlpEvent {
  const rest = Object.fromEntries(Object.entries(attributes).filter(([k]) => k !== "event.name"));
  return { name, timeUnixNano, attributes: isObj(body) ? { ...rest, ...(body as OtlpAttributes) } : rest };
}

/** A span's log events can make its turn: it has its input and its answer. */
export function logEventsComplete(events: OtlpEvent[]): boolean {
  const input = events.some((e) => e.name in EVENT_ROLES || (e.name === DETAILS_EVENT && e.attributes["gen_ai.input.messages"] !== undefined));
  const output = events.some((e) => e.name === "gen_ai.choice" || (e.name === DETAILS_EVENT && e.attributes["gen_ai.output.messages"] !== undefined));
  return input && output;
}

/** The span as if it carried its log events: details events as attributes, the older ones as span events. */
function withLogEvents(span: OtlpSpan, events: OtlpEvent[]): OtlpSpan {
  const attributes = { ...span.attributes };
  const details = events.filter((e) => e.name === DETAILS_EVENT);
  for (const key of ["gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.system_instructions"]) {
    const carrier = details.find((e) => e.attributes[key] !== undefined);
    if (carrier) attributes[key] = carrier.attributes[key];
  }
  // Input from the details event, else from the older events (both never: the details win).
  if (attributes["gen_ai.input.messages"] !== undefined && attributes["gen_ai.output.messages"] === undefined) {
    const choices = eventMessages(events.filter((e) => e.name === "gen_ai.choice"), span.path).output;
    attributes["gen_ai.output.messages"] = JSON.stringify(choices);
  }
  return { ...span, attributes, events: attributes["gen_ai.input.messages"] !== undefined ? [] : events.filter((e) => e.name !== DETAILS_EVENT) };
}

// --- the Vercel AI SDK's spans (package `ai`, experimental_telemetry) ---
//
// Its model calls are the spans ai.generateText.doGenerate, ai.streamText.doStream (and the
// object variants), with ai.prompt.messages (the provider-level prompt, JSON: system content
// is a string; user, assistant and tool content are parts: text, file, reasoning, tool-call
// {toolCallId, toolName, input}, tool-result {toolCallId, toolName, output {type, value}}),
// ai.response.text, ai.response.toolCalls (JSON [{toolCallId, toolName, input}]),
// ai.response.finishReason, gen_ai.system, gen_ai.request.model, gen_ai.usage.*. Read here
// into the conventions' parts, so the rest of capture sees one shape. The outer spans
// (ai.generateText, ai.streamText) repeat the call without the prompt: not read.

function readAiSdkSpan(span: OtlpSpan, resource: OtlpAttributes, receivedAt: Date): SpanReading {
  const a = span.attributes;
  const attr = (key: string) => `${span.path}.attributes[${key}]`;
  try {
    const raw = jsonValue(a["ai.prompt.messages"], attr("ai.prompt.messages"));
    if (!Array.isArray(raw)) throw new SpanProblem(attr("ai.prompt.messages"), "must be an array of messages");
    const input = raw.map((m, i) => aiSdkMessage(m, `${attr("ai.prompt.messages")}[${i}]`));
    const out: ChatPart[] = [];
    if (typeof a["ai.response.text"] === "string" && a["ai.response.text"] !== "") out.push({ type: "text", content: a["ai.response.text"] });
    if (a["ai.response.toolCalls"] !== undefined) {
      const calls = jsonValue(a["ai.response.toolCalls"], attr("ai.response.toolCalls"));
      if (!Array.isArray(calls)) throw new SpanProblem(attr("ai.response.toolCalls"), "must be an array");
      calls.forEach((c, i) => {
        if (!isObj(c) || typeof c.toolName !== "string") throw new SpanProblem(`${attr("ai.response.toolCalls")}[${i}].toolName`, "must be a string");
        out.push({ type: "tool_call", id: typeof c.toolCallId === "string" ? c.toolCallId : null, name: c.toolName, arguments: c.input ?? null });
      });
    }
    const output: ChatMessage[] = out.length || a["ai.response.finishReason"] !== undefined
      ? [{ role: "assistant", parts: out, ...(typeof a["ai.response.finishReason"] === "string" ? { finish_reason: a["ai.response.finishReason"] } : {}) }]
      : [];
    const startedAt = nsToDate(span.startTimeUnixNano, receivedAt, `${span.path}.startTimeUnixNano`);
    const metadata = (key: string) => text(a[`ai.telemetry.metadata.${key}`]);
    const endUserId = text(a["user.id"]) ?? metadata("userId") ?? metadata("user_id") ?? text(resource["user.id"]) ?? text(a["enduser.id"]);
    // The one user id rule, as for the conventions' spans: an id no route could address rejects the span.
    const userProblem = endUserId === null ? null : userIdProblem(endUserId);
    if (userProblem) throw new SpanProblem(attr("ai.telemetry.metadata.userId"), `not a usable user id: ${userProblem}`);
    return {
      kind: "chat",
      chat: {
        traceId: span.traceId,
        spanId: span.spanId,
        path: span.path,
        operation: "chat",
        provider: text(a["gen_ai.system"]) ?? text(a["ai.model.provider"]),
        requestModel: text(a["gen_ai.request.model"]) ?? text(a["ai.model.id"]),
        responseModel: text(a["gen_ai.response.model"]) ?? text(a["ai.response.model"]),
        // The SDK has no conversation or user attribute of its own: telemetry metadata carries them (README).
        conversationKey: text(a["gen_ai.conversation.id"]) ?? metadata("conversationId") ?? metadata("conversation_id"),
        appId: (text(a["memscope.app_id"]) ?? text(resource["memscope.app_id"]) ?? text(resource["service.name"]) ?? "otel").slice(0, 200),
        endUserId,
        messageForm: "ai_sdk",
        systemInstructions: null,
        inputMessages: input,
        outputMessages: output,
        inputTokens: int(a["gen_ai.usage.input_tokens"]) ?? int(a["ai.usage.inputTokens"]) ?? int(a["ai.usage.promptTokens"]),
        outputTokens: int(a["gen_ai.usage.output_tokens"]) ?? int(a["ai.usage.outputTokens"]) ?? int(a["ai.usage.completionTokens"]),
        startedAt,
        endedAt: nsToDate(span.endTimeUnixNano, startedAt, `${span.path}.endTimeUnixNano`),
        query: newInput(input),
        answer: output[0] ? messageText(output[0]) : "",
        toolCalls: output[0] ? toolCalls(output[0]) : [],
      },
    };
  } catch (e) {
    if (e instanceof SpanProblem) return { kind: "rejected", field: e.field, problem: e.problem };
    throw e;
  }
}

/** One message of ai.prompt.messages in the conventions' shape. */
function aiSdkMessage(m: unknown, field: string): ChatMessage {
  if (!isObj(m)) throw new SpanProblem(field, "must be an object");
  if (typeof m.role !== "string" || !m.role) throw new SpanProblem(`${field}.role`, "must be a non-empty string");
  if (typeof m.content === "string") return { role: m.role, parts: [{ type: "text", content: m.content }] };
  if (!Array.isArray(m.content)) throw new SpanProblem(`${field}.content`, "must be a string or an array of parts");
  const parts = m.content.map((p, i): ChatPart => {
    if (!isObj(p) || typeof p.type !== "string") throw new SpanProblem(`${field}.content[${i}].type`, "every part needs a type");
    switch (p.type) {
      case "text":
        return { type: "text", content: typeof p.text === "string" ? p.text : "" };
      case "reasoning":
        return { type: "reasoning", content: typeof p.text === "string" ? p.text : "" };
      case "tool-call":
        return { type: "tool_call", id: typeof p.toolCallId === "string" ? p.toolCallId : null, name: typeof p.toolName === "string" ? p.toolName : "", arguments: p.input ?? null };
      case "tool-result": {
        const o = isObj(p.output) ? p.output : null;
        // text and json outputs carry their value; the others (content, error-*, execution-denied) are kept whole.
        const response = o && (o.type === "text" || o.type === "json") ? o.value : (p.output ?? null);
        return { type: "tool_call_response", id: typeof p.toolCallId === "string" ? p.toolCallId : null, response };
      }
      default:
        return { ...p, type: p.type };
    }
  });
  return { role: m.role, parts };
}
