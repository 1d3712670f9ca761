import type { MessageFileInput } from "../messages/schemas";
import { isObj, optString, problemOf, RecordProblem, typeName, type Obj } from "./field-readers";
import { sha256Hex, stableUuid } from "./stable-id";
import type { ImportConversation, ImportTurn, ParsedImport } from "./types";

// OpenAI chat format: JSONL with one conversation per line ({"messages": [...]}: fine-tuning
// files and most log exports), or JSON (one such object, or an array of them). A user
// message opens a turn; the assistant's reply closes it. Assistant tool calls and the tool
// results that answer them go to the turn's metadata.tool_calls; system messages are kept
// on the conversation (model_config.system_messages). Lines have no ids of their own, so
// ids are derived from the line's content (or its "id" when it has one): a re-run finds them.

export type OpenAiOptions = { app_id?: string; end_user_id?: string | null };

type ToolCall = { id: string; name: string; arguments: string; result?: string };

export function parseOpenAi(items: { value: unknown; record: string; raw: string }[], opts: OpenAiOptions = {}): ParsedImport {
  const out: ParsedImport = { format: "openai", source: "openai", conversations: [], memories: [], problems: [] };
  for (const item of items) {
    try {
      out.conversations.push(conversationOf(item.value, item.record, item.raw, opts));
    } catch (e) {
      out.problems.push(problemOf(item.record, e));
    }
  }
  return out;
}

function conversationOf(v: unknown, record: string, raw: string, opts: OpenAiOptions): ImportConversation {
  if (!isObj(v)) throw new RecordProblem(undefined, `must be an object with messages, got ${typeName(v)}`);
  if (!Array.isArray(v.messages)) throw new RecordProblem("messages", "missing (an array of chat messages)");
  const ownId = typeof v.id === "string" && v.id.trim() ? v.id.trim() : null;
  const externalId = ownId ?? `sha256:${sha256Hex(raw.trim())}`;
  const id = stableUuid(`openai-conversation:${externalId}`);
  const system: string[] = [];
  const turns: ImportTurn[] = [];
  let open: { query: string[]; answer: string[]; files: MessageFileInput[]; calls: ToolCall[]; started: number } | null = null;

  const close = () => {
    if (!open) return;
    const n = turns.length;
    const metadata: Record<string, unknown> = { source: "openai" };
    if (open.calls.length) metadata.tool_calls = open.calls.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments, result: c.result ?? null }));
    turns.push({ id: stableUuid(`openai-turn:${externalId}:${n}`), path: `messages[${open.started}]`, query: open.query.join("\n\n"), answer: open.answer.join("\n\n"), files: open.files, metadata });
    open = null;
  };
  const ensureOpen = (i: number) => (open ??= { query: [], answer: [], files: [], calls: [], started: i });

  v.messages.forEach((m, i) => {
    const path = `messages[${i}]`;
    if (!isObj(m)) throw new RecordProblem(path, "must be an object");
    const role = optString(m, "role", `${path}.role`);
    const { text, files } = contentOf(m, path, role === "assistant" ? "assistant" : "user");
    switch (role) {
      case "system":
      case "developer":
        system.push(text);
        return;
      case "user": {
        // A user message after an answer starts the next turn; consecutive user messages join.
        if (open && (open.answer.length || open.calls.length)) close();
        const t = ensureOpen(i);
        if (text) t.query.push(text);
        t.files.push(...files);
        return;
      }
      case "assistant": {
        const t = ensureOpen(i);
        const calls = toolCallsOf(m, path);
        // OpenAI's format: an assistant message's content is "required unless tool_calls or
        // function_call is specified" (ChatCompletionAssistantMessageParam). One with neither
        // is a defect of the file, not an empty answer.
        if ((m.content === undefined || m.content === null) && !calls.length) {
          throw new RecordProblem(`${path}.content`, "missing (an assistant message without tool_calls needs content)");
        }
        t.calls.push(...calls);
        if (text) t.answer.push(text);
        t.files.push(...files);
        return;
      }
      case "tool":
      case "function": {
        const t = open as typeof open;
        const callId = optString(m, "tool_call_id", `${path}.tool_call_id`);
        const name = optString(m, "name", `${path}.name`);
        const call = t?.calls.find((c) => (callId ? c.id === callId : c.name === name && c.result === undefined));
        if (!t || !call) throw new RecordProblem(`${path}.tool_call_id`, "answers no earlier assistant tool call of this turn");
        call.result = text;
        return;
      }
      default:
        throw new RecordProblem(`${path}.role`, `must be system, developer, user, assistant or tool, got ${role === undefined ? "nothing" : JSON.stringify(role)}`);
    }
  });
  close();
  if (!turns.length) throw new RecordProblem("messages", "has no user or assistant message");

  const config: Record<string, unknown> = { source: "openai" };
  if (system.length) config.system_messages = system;
  if (typeof v.model === "string") config.model = v.model;
  if (Array.isArray(v.tools)) config.tools = v.tools;
  const name = firstLine(turns[0].query || turns[0].answer);
  return {
    externalId,
    record,
    id,
    app_id: opts.app_id ?? "openai",
    end_user_id: (typeof v.user === "string" && v.user) || opts.end_user_id || null,
    name,
    mode: "chat",
    model_config: config,
    turns,
    allowMissingParents: false,
  };
}

function firstLine(text: string): string {
  const line = text.split("\n").find((l) => l.trim()) ?? "";
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}

/** Text parts joined; image parts become file parts of the speaker's side. */
function contentOf(m: Obj, path: string, side: "user" | "assistant"): { text: string; files: MessageFileInput[] } {
  const c = m.content;
  if (c === undefined || c === null) return { text: "", files: [] };
  if (typeof c === "string") return { text: c, files: [] };
  if (!Array.isArray(c)) throw new RecordProblem(`${path}.content`, `must be a string or an array of parts, got ${typeName(c)}`);
  const texts: string[] = [];
  const files: MessageFileInput[] = [];
  c.forEach((p, k) => {
    const pp = `${path}.content[${k}]`;
    if (!isObj(p)) throw new RecordProblem(pp, "must be an object");
    if (p.type === "text" || p.type === "input_text" || p.type === "output_text") {
      texts.push(optString(p, "text", `${pp}.text`) ?? "");
    } else if (p.type === "image_url") {
      const iu = p.image_url;
      const url = typeof iu === "string" ? iu : isObj(iu) ? optString(iu, "url", `${pp}.image_url.url`) : undefined;
      if (!url) throw new RecordProblem(`${pp}.image_url.url`, "missing");
      if (url.length > 4000) throw new RecordProblem(`${pp}.image_url.url`, "longer than 4000 characters (inline data URLs are not stored)");
      files.push({ type: "image", transfer_method: "remote_url", url, upload_file_id: null, belongs_to: side });
    } else if (p.type === "refusal") {
      texts.push(optString(p, "refusal", `${pp}.refusal`) ?? "");
    } else {
      throw new RecordProblem(`${pp}.type`, `unsupported content part ${JSON.stringify(p.type)}`);
    }
  });
  return { text: texts.join("\n"), files };
}

function toolCallsOf(m: Obj, path: string): ToolCall[] {
  const calls: ToolCall[] = [];
  if (Array.isArray(m.tool_calls)) {
    m.tool_calls.forEach((c, k) => {
      const cp = `${path}.tool_calls[${k}]`;
      if (!isObj(c) || !isObj(c.function)) throw new RecordProblem(`${cp}.function`, "missing (tool calls carry function.name and function.arguments)");
      const name = optString(c.function, "name", `${cp}.function.name`);
      if (!name) throw new RecordProblem(`${cp}.function.name`, "missing");
      calls.push({ id: optString(c, "id", `${cp}.id`) ?? `call-${k}`, name, arguments: argumentsOf(c.function, `${cp}.function.arguments`) });
    });
  } else if (m.tool_calls !== undefined && m.tool_calls !== null) {
    throw new RecordProblem(`${path}.tool_calls`, "must be an array");
  }
  // The legacy single function_call.
  if (isObj(m.function_call)) {
    const name = optString(m.function_call, "name", `${path}.function_call.name`);
    if (!name) throw new RecordProblem(`${path}.function_call.name`, "missing");
    calls.push({ id: `function-${name}`, name, arguments: argumentsOf(m.function_call, `${path}.function_call.arguments`) });
  }
  return calls;
}

/** OpenAI's format: function.arguments is required, a string (JSON text the model wrote, kept as written). */
function argumentsOf(fn: Obj, path: string): string {
  const args = fn.arguments;
  if (args === undefined || args === null) throw new RecordProblem(path, "missing (a string of JSON text is required)");
  if (typeof args !== "string") throw new RecordProblem(path, `must be a string of JSON text, got ${typeName(args)}`);
  return args;
}
