import { isObj, optArray, optString, optTime, problemOf, RecordProblem, typeName, type Obj } from "./field-readers";
import { sha256Hex, stableUuid } from "./stable-id";
import type { ImportConversation, ImportMemory, ImportTurn, ParsedImport } from "./types";

// Letta's AgentFile (.af), two schemas:
// - current (letta/schemas/agent_file.py, AgentFileSchema): {agents: [{id, name, system,
//   block_ids, in_context_message_ids, messages: [{id, role, content, tool_calls,
//   tool_call_id, tool_returns, approve, approval_request_id, denial_reason, approvals,
//   created_at}]}], blocks: [{id, label, value, limit, description, read_only}], groups,
//   tools, ...};
// - older, still in circulation (letta/serialize_schemas/pydantic_agent_schema.py): one
//   agent per file, {name, system, core_memory: [{label, value, limit, ...}],
//   in_context_message_indices: [0, 1, ...], messages: [...]}.
// Core memory blocks become memories of kind letta_core_block (structured_data.kind) with
// their label and limit; a block that two agents share is one memory naming both. Each
// agent's messages become one conversation: a user message opens a turn, the assistant's
// text (or its send_message call) answers it, tool calls with their returns and approvals go
// to the turn's metadata, and the turns holding in-context messages say so (in_context).

export type LettaOptions = { app_id?: string; end_user_id?: string | null };

type Block = { id: string; label: string; value: string; limit: number | null; description: string | null; read_only: boolean; path: string; agents: string[] };

export function parseLetta(v: unknown, record: string, opts: LettaOptions = {}): ParsedImport {
  const out: ParsedImport = { format: "letta", source: "letta", conversations: [], memories: [], problems: [], skipped: 0 };
  if (!isObj(v)) {
    out.problems.push({ record, message: `must be an agent file object, got ${typeName(v)}` });
    return out;
  }
  const current = Array.isArray(v.agents);
  const agents: { a: Obj; path: string }[] = current ? (v.agents as unknown[]).map((a, i) => ({ a: a as Obj, path: `agents[${i}]` })) : [{ a: v, path: "agent" }];
  if (!current && !Array.isArray(v.core_memory) && !Array.isArray(v.messages)) {
    out.problems.push({ record, field: "agents", message: "missing (an agent file has agents, or core_memory and messages in the older schema)" });
    return out;
  }
  const blocks = new Map<string, Block>();
  if (current) {
    optArray(v, "blocks").forEach((b, i) => {
      const path = `blocks[${i}]`;
      try {
        const block = blockOf(b, path);
        blocks.set(block.id, block);
      } catch (e) {
        out.problems.push(problemOf(`${record} ${path}`, e));
      }
    });
  }
  for (const { a, path } of agents) {
    const rec = `${record} ${path}`;
    try {
      if (!isObj(a)) throw new RecordProblem(undefined, `must be an object, got ${typeName(a)}`);
      const name = optString(a, "name", `${path}.name`) ?? path;
      if (current) {
        for (const [k, id] of optArray(a, "block_ids", `${path}.block_ids`).entries()) {
          const b = typeof id === "string" ? blocks.get(id) : undefined;
          if (!b) throw new RecordProblem(`${path}.block_ids[${k}]`, `names no block of the file (${String(id)})`);
          b.agents.push(name);
        }
      } else {
        optArray(a, "core_memory", "core_memory").forEach((b, i) => {
          const block = blockOf(isObj(b) ? { id: `core_memory[${i}]`, ...b } : b, `core_memory[${i}]`);
          block.agents.push(name);
          blocks.set(block.id, block);
        });
      }
      const conv = agentConversation(a, name, path, rec, current, opts);
      if (conv) out.conversations.push(conv);
      else out.skipped!++;
    } catch (e) {
      out.problems.push(problemOf(rec, e));
    }
  }
  // One memory per block, whatever the number of agents holding it.
  const byContent = new Map<string, Block>();
  for (const b of blocks.values()) {
    const key = sha256Hex(`${b.label}\n${b.value}`);
    const seen = byContent.get(key);
    if (seen) {
      seen.agents.push(...b.agents.filter((n) => !seen.agents.includes(n)));
      continue;
    }
    byContent.set(key, b);
  }
  for (const [key, b] of byContent) {
    if (!b.value.trim()) {
      out.skipped!++; // an empty block holds no memory
      continue;
    }
    out.memories.push({
      externalId: `letta:block:${key}`,
      record: `${record} ${b.path}`,
      user_id: opts.end_user_id ?? "letta",
      app_id: opts.app_id ?? "letta",
      memory_type: "fact",
      content: b.value,
      structured_data: { source: "letta", kind: "letta_core_block", label: b.label, limit: b.limit, description: b.description, read_only: b.read_only, agents: b.agents },
      status: "active",
      history: [],
    } satisfies ImportMemory);
  }
  return out;
}

function blockOf(b: unknown, path: string): Block {
  if (!isObj(b)) throw new RecordProblem(path, `must be an object, got ${typeName(b)}`);
  const label = optString(b, "label", `${path}.label`);
  if (!label) throw new RecordProblem(`${path}.label`, "missing");
  const value = optString(b, "value", `${path}.value`) ?? "";
  const limit = b.limit === undefined || b.limit === null ? null : b.limit;
  if (limit !== null && (typeof limit !== "number" || !Number.isInteger(limit) || limit < 0)) throw new RecordProblem(`${path}.limit`, `must be a whole number of characters, got ${JSON.stringify(limit)}`);
  if (limit !== null && value.length > limit) throw new RecordProblem(`${path}.value`, `is ${value.length} characters, over the block's limit of ${limit}`);
  const id = optString(b, "id", `${path}.id`) ?? path;
  return { id, label, value, limit, description: optString(b, "description", `${path}.description`) ?? null, read_only: b.read_only === true, path, agents: [] };
}

type Call = { id: string; name: string; arguments: string; result: string | null; status?: string; approval?: { approve: boolean | null; reason: string | null } };

function agentConversation(a: Obj, name: string, path: string, record: string, current: boolean, opts: LettaOptions): ImportConversation | null {
  const messages = optArray(a, "messages", `${path}.messages`);
  // The file's message ids ("message-0") are the file's own: the agent's identity is its name, system prompt and first message.
  const externalId = `letta:agent:${sha256Hex(JSON.stringify([name, a.system ?? null, isObj(messages[0]) ? [messages[0].id ?? null, messages[0].created_at ?? null] : null]))}`;
  const inContext = new Set<number>();
  if (current) {
    const ids = optArray(a, "in_context_message_ids", `${path}.in_context_message_ids`);
    const index = new Map(messages.map((m, i) => [isObj(m) ? m.id : undefined, i]));
    ids.forEach((id, k) => {
      const i = index.get(id as string);
      if (i === undefined) throw new RecordProblem(`${path}.in_context_message_ids[${k}]`, `names no message of this agent (${String(id)})`);
      inContext.add(i);
    });
  } else {
    optArray(a, "in_context_message_indices", "in_context_message_indices").forEach((n, k) => {
      if (typeof n !== "number" || !Number.isInteger(n) || n < 0 || n >= messages.length) throw new RecordProblem(`in_context_message_indices[${k}]`, `must index messages (0..${messages.length - 1}), got ${JSON.stringify(n)}`);
      inContext.add(n);
    });
  }
  const turns: ImportTurn[] = [];
  const system: string[] = [];
  type Open = { query: string[]; answer: string[]; calls: Call[]; first: number; created?: string; ids: string[]; inContext: boolean };
  let open: Open | null = null;
  const close = () => {
    if (!open) return;
    const id = stableUuid(`letta-turn:${externalId}:${open.first}`);
    const metadata: Record<string, unknown> = { source: "letta", message_ids: open.ids, in_context: open.inContext };
    if (open.calls.length) metadata.tool_calls = open.calls;
    turns.push({ id, path: `${path}.messages[${open.first}]`, parent_message_id: turns.at(-1)?.id ?? null, query: open.query.join("\n\n"), answer: open.answer.join("\n\n"), created_at: open.created, files: [], metadata });
    open = null;
  };
  messages.forEach((m, i) => {
    const mp = `${path}.messages[${i}]`;
    if (!isObj(m)) throw new RecordProblem(mp, `must be an object, got ${typeName(m)}`);
    const role = optString(m, "role", `${mp}.role`);
    const created = optTime(m, "created_at", `${mp}.created_at`);
    const text = textOf(m.content, `${mp}.content`);
    const start = (): Open => (open ??= { query: [], answer: [], calls: [], first: i, created, ids: [], inContext: false });
    const note = (o: Open) => {
      o.ids.push(typeof m.id === "string" ? m.id : `#${i}`);
      if (inContext.has(i)) o.inContext = true;
    };
    switch (role) {
      case "system":
        system.push(text);
        return;
      case "user": {
        const said = userText(text);
        // Heartbeats and login events are Letta's own, not the user speaking.
        if (said === null) {
          if (open) note(open);
          return;
        }
        if (open && (open.answer.length || open.calls.length)) close();
        const o = start();
        note(o);
        o.query.push(said);
        return;
      }
      case "assistant": {
        const o = start();
        note(o);
        if (text) o.answer.push(text);
        for (const [k, c] of optArray(m, "tool_calls", `${mp}.tool_calls`).entries()) {
          const cp = `${mp}.tool_calls[${k}]`;
          if (!isObj(c) || !isObj(c.function)) throw new RecordProblem(`${cp}.function`, "missing (a tool call has function.name and function.arguments)");
          const fname = optString(c.function, "name", `${cp}.function.name`);
          if (!fname) throw new RecordProblem(`${cp}.function.name`, "missing");
          const args = optString(c.function, "arguments", `${cp}.function.arguments`) ?? "";
          // Letta agents answer through the send_message tool: its message is the answer.
          if (fname === "send_message") {
            try {
              const parsed = JSON.parse(args);
              if (isObj(parsed) && typeof parsed.message === "string") o.answer.push(parsed.message);
            } catch {
              throw new RecordProblem(`${cp}.function.arguments`, "send_message arguments are not JSON");
            }
          }
          o.calls.push({ id: optString(c, "id", `${cp}.id`) ?? `${i}:${k}`, name: fname, arguments: args, result: null });
        }
        return;
      }
      case "tool": {
        const o = start();
        note(o);
        const returns = optArray(m, "tool_returns", `${mp}.tool_returns`);
        const callId = optString(m, "tool_call_id", `${mp}.tool_call_id`);
        const results = returns.length
          ? returns.map((r, k) => {
              if (!isObj(r)) throw new RecordProblem(`${mp}.tool_returns[${k}]`, "must be an object");
              return { id: optString(r, "tool_call_id", `${mp}.tool_returns[${k}].tool_call_id`) ?? callId, status: optString(r, "status"), text: typeof r.func_response === "string" ? r.func_response : text };
            })
          : [{ id: callId, status: undefined, text }];
        for (const r of results) {
          const call = o.calls.find((c) => c.id === r.id) ?? o.calls.find((c) => c.result === null);
          if (!call) throw new RecordProblem(`${mp}.tool_call_id`, `answers no earlier tool call (${r.id ?? "no id"})`);
          call.result = r.text;
          if (r.status) call.status = r.status;
        }
        return;
      }
      case "approval": {
        // Human-in-the-loop: an approval request (assistant side, tool_calls) or the user's answer (approve / denial_reason / approvals).
        const o = start();
        note(o);
        const reqId = optString(m, "approval_request_id", `${mp}.approval_request_id`);
        const approve = typeof m.approve === "boolean" ? m.approve : null;
        const reason = optString(m, "denial_reason", `${mp}.denial_reason`) ?? null;
        for (const [k, c] of optArray(m, "tool_calls", `${mp}.tool_calls`).entries()) {
          if (!isObj(c) || !isObj(c.function)) throw new RecordProblem(`${mp}.tool_calls[${k}].function`, "missing");
          o.calls.push({ id: optString(c, "id") ?? `${i}:${k}`, name: optString(c.function, "name") ?? "tool", arguments: optString(c.function, "arguments") ?? "", result: null, approval: { approve: null, reason: null } });
        }
        const approvals = optArray(m, "approvals", `${mp}.approvals`);
        for (const [k, ap] of approvals.entries()) {
          if (!isObj(ap)) throw new RecordProblem(`${mp}.approvals[${k}]`, "must be an object");
          const id = optString(ap, "tool_call_id");
          const call = o.calls.find((c) => c.id === id);
          if (call) call.approval = { approve: typeof ap.approve === "boolean" ? ap.approve : ap.status === "success", reason: optString(ap, "reason") ?? null };
        }
        if (!approvals.length && (approve !== null || reqId)) {
          for (const c of o.calls.filter((c) => c.approval && c.approval.approve === null)) c.approval = { approve, reason };
        }
        return;
      }
      default:
        throw new RecordProblem(`${mp}.role`, `must be system, user, assistant, tool or approval, got ${JSON.stringify(role ?? null)}`);
    }
  });
  close();
  if (!turns.length) return null;
  const config: Record<string, unknown> = { source: "letta", agent: name };
  if (system.length || typeof a.system === "string") config.system_messages = system.length ? system : [a.system];
  if (isObj(a.llm_config) && typeof a.llm_config.model === "string") config.model = a.llm_config.model;
  if (typeof a.agent_type === "string") config.agent_type = a.agent_type;
  config.in_context_messages = inContext.size;
  return {
    externalId,
    record,
    id: stableUuid(`letta-conversation:${externalId}`),
    app_id: opts.app_id ?? "letta",
    end_user_id: opts.end_user_id ?? null,
    name: name.slice(0, 255),
    mode: "agent-chat",
    model_config: config,
    created_at: optTime(a, "created_at", `${path}.created_at`),
    updated_at: optTime(a, "updated_at", `${path}.updated_at`),
    turns,
    allowMissingParents: false,
  };
}

function textOf(c: unknown, path: string): string {
  if (c === undefined || c === null) return "";
  if (typeof c === "string") return c;
  if (!Array.isArray(c)) throw new RecordProblem(path, `must be a string or an array of parts, got ${typeName(c)}`);
  return c
    .map((p, k) => {
      if (!isObj(p)) throw new RecordProblem(`${path}[${k}]`, "must be an object");
      if (p.type === "text") return typeof p.text === "string" ? p.text : "";
      if (p.type === "reasoning" || p.type === "omitted_reasoning" || p.type === "redacted_reasoning") return "";
      return "";
    })
    .filter(Boolean)
    .join("\n");
}

/** What the user said: Letta wraps it as {"type": "user_message", "message": ...}; heartbeats and logins are null. */
function userText(text: string): string | null {
  const t = text.trim();
  if (!t.startsWith("{")) return text;
  try {
    const j = JSON.parse(t);
    if (isObj(j) && typeof j.type === "string") {
      if (j.type === "user_message" && typeof j.message === "string") return j.message;
      if (j.type === "heartbeat" || j.type === "login" || j.type === "system_alert") return null;
    }
  } catch {
    // plain text that starts with a brace
  }
  return text;
}
