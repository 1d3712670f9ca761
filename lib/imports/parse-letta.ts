import type { MessageFileInput } from "../messages/schemas";
import { addCounts, Defects, isObj, optArray, optString, optTime, typeName, type Obj } from "./field-readers";
import { sha256Hex, stableUuid } from "./stable-id";
import type { ImportConversation, ImportMemory, ImportTurn, ParsedImport } from "./types";

// Letta's AgentFile (.af), two schemas:
// - current (letta/schemas/agent_file.py, AgentFileSchema): {agents: [{id, name, system,
//   agent_type, block_ids, in_context_message_ids, messages: [MessageSchema: {id, role,
//   content, tool_calls, tool_call_id, tool_returns, approve, approval_request_id,
//   denial_reason, approvals, created_at}]}], blocks: [{id, label, value, limit, ...}], ...};
// - older, still in circulation (letta/serialize_schemas/pydantic_agent_schema.py): one
//   agent per file, {name, system, core_memory: [{label, value, limit, ...}],
//   in_context_message_indices: [0, 1, ...], messages: [...]}.
// Read from letta-ai/letta at 56ba9c2 (the last commit with the Python server): MessageRole
// (schemas/enums.py: system, user, assistant, tool, function, approval, summary), the content
// parts (schemas/letta_message_content.py: text, image, tool_call, tool_return, reasoning,
// redacted_reasoning, omitted_reasoning, summarized_reasoning), the packed user-side JSON of
// system.py (user_message, heartbeat, login, system_alert) and Message.to_letta_messages.
//
// Core memory blocks become memories of kind letta_core_block (structured_data.kind) with
// their label and limit; a block that two agents share is one memory naming both. Each
// agent's messages become one conversation: a user message (or a system alert that set the
// agent going) opens a turn; the assistant's answer is its send_message call, or its text on
// the agents Letta runs on LettaAgentV3 (letta_v1_agent, sleeptime_agent: agents/agent_loop.py,
// whose replies read text as the assistant's message), else the text is its inner thoughts.
// Tool calls with their returns and approvals (a denied one too) go to metadata.tool_calls,
// the turn's tool calls; images to files. What Memscope has no column for is kept in the
// turn's metadata and counted by reason (ParsedImport.unrepresented): reasoning, summary
// messages (Letta's context compaction), login/heartbeat events, an image's bytes (base64:
// only its digest and size are kept), reasoning the provider withheld.

export type LettaOptions = { app_id?: string; end_user_id?: string | null };

type Block = { id: string; label: string; value: string; limit: number | null; description: string | null; read_only: boolean; path: string; agents: string[] };

/** Agent types whose assistant text is the reply, not inner thoughts (they run on LettaAgentV3). */
const TEXT_IS_ANSWER = new Set(["letta_v1_agent", "sleeptime_agent"]);

export function parseLetta(v: unknown, record: string, opts: LettaOptions = {}): ParsedImport {
  const out: ParsedImport = { format: "letta", source: "letta", conversations: [], memories: [], problems: [], skipped: 0, unrepresented: {} };
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
  /** Blocks left out for their own defects: an agent naming one is not defective for it. */
  const badBlocks = new Set<string>();
  if (current) {
    optArray(v, "blocks").forEach((b, i) => {
      const path = `blocks[${i}]`;
      const d = new Defects(`${record} ${path}`);
      const block = blockOf(b, path, d);
      if (block && !d.any) blocks.set(block.id, block);
      else {
        if (isObj(b) && typeof b.id === "string") badBlocks.add(b.id);
        out.problems.push(...d.list);
      }
    });
  }
  for (const { a, path } of agents) {
    const d = new Defects(`${record} ${path}`);
    if (!isObj(a)) {
      d.add(undefined, `must be an object, got ${typeName(a)}`);
      out.problems.push(...d.list);
      continue;
    }
    const name = d.check(() => optString(a, "name", `${path}.name`)) ?? path;
    const mine: Block[] = [];
    if (current) {
      d.check(() => optArray(a, "block_ids", `${path}.block_ids`))?.forEach((id, k) => {
        const b = typeof id === "string" ? blocks.get(id) : undefined;
        if (b) mine.push(b);
        else if (!(typeof id === "string" && badBlocks.has(id))) d.add(`${path}.block_ids[${k}]`, `names no block of the file (${String(id)})`);
      });
    } else {
      d.check(() => optArray(a, "core_memory", "core_memory"))?.forEach((b, i) => {
        const block = blockOf(isObj(b) ? { id: `core_memory[${i}]`, ...b } : b, `core_memory[${i}]`, d);
        if (block) mine.push(block);
      });
    }
    const unrepresented: Record<string, number> = {};
    const conv = agentConversation(a, name, path, `${record} ${path}`, current, opts, d, unrepresented);
    if (d.any) {
      out.problems.push(...d.list);
      continue;
    }
    for (const b of mine) {
      b.agents.push(name);
      if (!current) blocks.set(b.id, b);
    }
    addCounts(out.unrepresented!, unrepresented);
    if (conv) out.conversations.push(conv);
    else out.skipped!++;
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

/** A block, or null when it has a defect (each one noted in `d`). */
function blockOf(b: unknown, path: string, d: Defects): Block | null {
  if (!isObj(b)) {
    d.add(path, `must be an object, got ${typeName(b)}`);
    return null;
  }
  const before = d.list.length;
  const label = d.check(() => optString(b, "label", `${path}.label`));
  if (label === undefined && !d.list.slice(before).length) d.add(`${path}.label`, "missing");
  const value = d.check(() => optString(b, "value", `${path}.value`)) ?? "";
  const limit = b.limit === undefined || b.limit === null ? null : b.limit;
  if (limit !== null && (typeof limit !== "number" || !Number.isInteger(limit) || limit < 0)) d.add(`${path}.limit`, `must be a whole number of characters, got ${JSON.stringify(limit)}`);
  else if (limit !== null && value.length > limit) d.add(`${path}.value`, `is ${value.length} characters, over the block's limit of ${limit}`);
  const id = d.check(() => optString(b, "id", `${path}.id`)) ?? path;
  const description = d.check(() => optString(b, "description", `${path}.description`)) ?? null;
  if (d.list.length > before || !label) return null;
  return { id, label, value, limit: limit as number | null, description, read_only: b.read_only === true, path, agents: [] };
}

type Call = { id: string; name: string; arguments: string; result: string | null; status?: string; approval?: { approve: boolean | null; reason: string | null } };

/** What a turn gathers from the messages it spans. */
type Open = {
  query: string[];
  answer: string[];
  calls: Call[];
  reasoning: string[];
  files: MessageFileInput[];
  images: Obj[];
  events: Obj[];
  summaries: Obj[];
  trigger?: Obj;
  hiddenReasoning: number;
  first: number;
  created?: string;
  ids: string[];
  inContext: boolean;
};

function agentConversation(a: Obj, name: string, path: string, record: string, current: boolean, opts: LettaOptions, d: Defects, count: Record<string, number>): ImportConversation | null {
  const messages = d.check(() => optArray(a, "messages", `${path}.messages`)) ?? [];
  const agentType = typeof a.agent_type === "string" ? a.agent_type : null;
  const textIsAnswer = agentType !== null && TEXT_IS_ANSWER.has(agentType);
  // The file's message ids ("message-0") are the file's own: the agent's identity is its name, system prompt and first message.
  const externalId = `letta:agent:${sha256Hex(JSON.stringify([name, a.system ?? null, isObj(messages[0]) ? [messages[0].id ?? null, messages[0].created_at ?? null] : null]))}`;
  const inContext = new Set<number>();
  if (current) {
    const index = new Map(messages.map((m, i) => [isObj(m) ? m.id : undefined, i]));
    d.check(() => optArray(a, "in_context_message_ids", `${path}.in_context_message_ids`))?.forEach((id, k) => {
      const i = index.get(id as string);
      if (i === undefined) d.add(`${path}.in_context_message_ids[${k}]`, `names no message of this agent (${String(id)})`);
      else inContext.add(i);
    });
  } else {
    d.check(() => optArray(a, "in_context_message_indices", "in_context_message_indices"))?.forEach((n, k) => {
      if (typeof n !== "number" || !Number.isInteger(n) || n < 0 || n >= messages.length) d.add(`in_context_message_indices[${k}]`, `must index messages (0..${messages.length - 1}), got ${JSON.stringify(n)}`);
      else inContext.add(n);
    });
  }
  const bump = (k: string, n = 1) => (count[k] = (count[k] ?? 0) + n);
  const turns: ImportTurn[] = [];
  const system: string[] = [];
  let open: Open | null = null;
  let carry: Pick<Open, "events" | "summaries" | "ids" | "inContext"> = { events: [], summaries: [], ids: [], inContext: false };
  const close = () => {
    if (!open) return;
    const o: Open = open;
    open = null;
    const id = stableUuid(`letta-turn:${externalId}:${o.first}`);
    const metadata: Record<string, unknown> = { source: "letta", message_ids: o.ids, in_context: o.inContext };
    if (o.calls.length) metadata.tool_calls = o.calls;
    if (o.reasoning.length) metadata.reasoning = o.reasoning.join("\n\n");
    if (o.hiddenReasoning) metadata.hidden_reasoning = o.hiddenReasoning;
    if (o.images.length) metadata.images = o.images;
    if (o.events.length) metadata.events = o.events;
    if (o.summaries.length) metadata.summaries = o.summaries;
    if (o.trigger) metadata.trigger = o.trigger;
    turns.push({
      id,
      path: `${path}.messages[${o.first}]`,
      parent_message_id: turns.at(-1)?.id ?? null,
      query: o.query.join("\n\n"),
      answer: o.answer.join("\n\n"),
      created_at: o.created,
      files: o.files.slice(0, 20),
      metadata,
    });
  };
  const answered = (o: Open | null) => !!o && (o.answer.length > 0 || o.calls.length > 0);
  messages.forEach((m, i) => {
    const mp = `${path}.messages[${i}]`;
    if (!isObj(m)) return d.add(mp, `must be an object, got ${typeName(m)}`);
    const role = d.check(() => optString(m, "role", `${mp}.role`));
    const created = d.check(() => optTime(m, "created_at", `${mp}.created_at`));
    const parts = partsOf(m.content, `${mp}.content`, d);
    const start = (): Open => {
      if (open) return open;
      // Events and summaries met before it (no turn open) belong to the turn this message opens.
      const o: Open = { query: [], answer: [], calls: [], reasoning: [], files: [], images: [], events: carry.events, summaries: carry.summaries, hiddenReasoning: 0, first: i, created, ids: carry.ids, inContext: carry.inContext };
      carry = { events: [], summaries: [], ids: [], inContext: false };
      return (open = o);
    };
    /** Where an event or a summary goes: the open turn, else the next one. */
    const aside = () => open ?? carry;
    const note = (o: Pick<Open, "ids" | "inContext">) => {
      o.ids.push(typeof m.id === "string" ? m.id : `#${i}`);
      if (inContext.has(i)) o.inContext = true;
    };
    const mid = typeof m.id === "string" ? m.id : `#${i}`;
    /** Images of a message: files Memscope can point at, and what it keeps of the others. */
    const addImages = (o: Open, side: "user" | "assistant") => {
      for (const img of parts.images) {
        const file = imageFile(img, side);
        if (file) o.files.push(file);
        const kept = imageNote(img, mid);
        o.images.push(kept);
        if (img.source.type === "base64" || (img.source.type === "letta" && typeof img.source.data === "string")) bump("letta_image_data");
      }
    };
    /** The assistant side of a message (assistant, approval): thoughts, text, hidden reasoning, images. */
    const assistantParts = (o: Open) => {
      // Text beside a tool call is the inner monologue of Letta's older loops; text alone is what the agent said.
      const spoken = textIsAnswer || !Array.isArray(m.tool_calls) || !m.tool_calls.length;
      for (const t of parts.texts) (spoken ? o.answer : o.reasoning).push(t);
      if (!spoken && parts.texts.length) bump("letta_reasoning", parts.texts.length);
      if (parts.reasoning.length) {
        o.reasoning.push(...parts.reasoning);
        bump("letta_reasoning", parts.reasoning.length);
      }
      if (parts.hidden) {
        o.hiddenReasoning += parts.hidden;
        bump("letta_hidden_reasoning", parts.hidden);
      }
      addImages(o, "assistant");
    };
    switch (role) {
      case "system":
        system.push(parts.texts.join("\n"));
        return;
      case "summary": {
        // Letta's context compaction (services/summarizer/compact.py): a packed system_alert with the summary and its stats. Kept with the turn that follows.
        if (answered(open)) close();
        const o = aside();
        note(o);
        const packed = unpack(parts.texts.join("\n"));
        o.summaries.push({ message_id: mid, text: packed?.message ?? parts.texts.join("\n"), ...(packed?.compaction_stats ? { compaction_stats: packed.compaction_stats } : {}), ...(created ? { created_at: created } : {}) });
        bump("letta_summary");
        return;
      }
      case "user": {
        const text = parts.texts.join("\n");
        const packed = unpack(text);
        if (packed && (packed.type === "heartbeat" || packed.type === "login")) {
          // Letta's own events, not the user speaking: kept on the turn they fall in.
          const o = aside();
          note(o);
          o.events.push({ message_id: mid, ...packed.raw });
          bump("letta_event");
          return;
        }
        if (packed && packed.type === "system_alert") {
          if (/hidden from view due to (conversation )?memory constraints/.test(packed.message ?? "")) {
            // The summary as older Letta wrote it: a user message holding a system alert (Message.is_summarization_message).
            if (answered(open)) close();
            const o = aside();
            note(o);
            o.summaries.push({ message_id: mid, text: packed.message ?? "", ...(created ? { created_at: created } : {}) });
            bump("letta_summary");
            return;
          }
          // A system alert that sets the agent going (no user spoke): it is the turn's question, marked as such.
          if (answered(open)) close();
          const o = start();
          note(o);
          o.query.push(packed.message ?? text);
          o.trigger ??= { type: "system_alert", message_id: mid };
          return;
        }
        if (answered(open)) close();
        const o = start();
        note(o);
        const said = packed && packed.type === "user_message" && typeof packed.message === "string" ? packed.message : text;
        if (said) o.query.push(said);
        addImages(o, "user");
        return;
      }
      case "assistant": {
        const o = start();
        note(o);
        assistantParts(o);
        for (const call of callsOf(m, mp, i, d)) {
          // Letta agents answer through the send_message tool: its message is the answer.
          if (call.name === "send_message") {
            try {
              const parsed = JSON.parse(call.arguments);
              if (isObj(parsed) && typeof parsed.message === "string") o.answer.push(parsed.message);
            } catch {
              d.add(`${mp}.tool_calls`, `send_message arguments are not JSON (${call.id})`);
            }
          }
          o.calls.push(call);
        }
        // Tool calls some providers keep among the content parts (Gemini): those not already in tool_calls.
        for (const c of parts.toolCalls) if (!o.calls.some((x) => x.id === c.id)) o.calls.push(c);
        return;
      }
      case "tool":
      case "function": {
        const o = start();
        note(o);
        const callId = d.check(() => optString(m, "tool_call_id", `${mp}.tool_call_id`));
        const returns = d.check(() => optArray(m, "tool_returns", `${mp}.tool_returns`)) ?? [];
        const results = returns.length
          ? returns.flatMap((r, k) => {
              const rp = `${mp}.tool_returns[${k}]`;
              if (!isObj(r)) {
                d.add(rp, "must be an object");
                return [];
              }
              return [{ id: d.check(() => optString(r, "tool_call_id", `${rp}.tool_call_id`)) ?? callId, status: typeof r.status === "string" ? r.status : undefined, text: returnText(r.func_response, rp, d, bump) ?? unpackReturn(parts.texts.join("\n")) }];
            })
          : [{ id: callId, status: undefined, text: unpackReturn(parts.texts.join("\n")) }];
        for (const r of [...results, ...parts.toolReturns]) {
          const call = o.calls.find((c) => c.id === r.id && c.result === null) ?? o.calls.find((c) => c.id === r.id) ?? (r.id ? undefined : o.calls.find((c) => c.result === null));
          if (!call) {
            d.add(`${mp}.tool_call_id`, `answers no earlier tool call (${r.id ?? "no id"})`);
            continue;
          }
          call.result = r.text;
          if (r.status) call.status = r.status;
        }
        return;
      }
      case "approval": {
        // Human in the loop (Message.is_approval_request / is_approval_response): a request
        // (tool_calls awaiting approval) or the answer (approvals: ApprovalReturn per call, or a
        // ToolReturn once an approved call ran; older files: approve, approval_request_id, denial_reason).
        const o = start();
        note(o);
        assistantParts(o);
        const requested = callsOf(m, mp, i, d);
        for (const c of requested) o.calls.push({ ...c, approval: { approve: null, reason: null } });
        if (requested.length) return;
        const approvals = d.check(() => optArray(m, "approvals", `${mp}.approvals`)) ?? [];
        const pending = () => o.calls.filter((c) => c.approval && c.approval.approve === null);
        approvals.forEach((ap, k) => {
          const ip = `${mp}.approvals[${k}]`;
          if (!isObj(ap)) return d.add(ip, "must be an object");
          const id = typeof ap.tool_call_id === "string" ? ap.tool_call_id : undefined;
          const call = o.calls.find((c) => c.id === id) ?? (id ? undefined : pending()[0]);
          if (!call) return d.add(`${ip}.tool_call_id`, `answers no tool call awaiting approval (${id ?? "no id"})`);
          if (ap.type === "tool" || "func_response" in ap || "tool_return" in ap) {
            // The approved call ran: its return (schemas/message.py ToolReturn: func_response; letta_message.py's: tool_return).
            call.result = returnText(ap.func_response ?? ap.tool_return, `${ip}.${"tool_return" in ap ? "tool_return" : "func_response"}`, d, bump) ?? null;
            if (typeof ap.status === "string") call.status = ap.status;
            if (call.approval?.approve === null) call.approval = { approve: true, reason: null };
          } else {
            call.approval = { approve: typeof ap.approve === "boolean" ? ap.approve : null, reason: typeof ap.reason === "string" ? ap.reason : null };
          }
        });
        if (!approvals.length) {
          const approve = typeof m.approve === "boolean" ? m.approve : null;
          const reason = d.check(() => optString(m, "denial_reason", `${mp}.denial_reason`)) ?? null;
          for (const c of pending()) c.approval = { approve, reason };
        }
        return;
      }
      default:
        d.add(`${mp}.role`, `must be one of Letta's roles (system, user, assistant, tool, function, approval, summary), got ${JSON.stringify(role ?? null)}`);
    }
  });
  close();
  // Events or a summary after the last turn: kept on it.
  const last = turns.at(-1);
  if (last && (carry.events.length || carry.summaries.length)) {
    const md = last.metadata!;
    (md.message_ids as string[]).push(...carry.ids);
    if (carry.events.length) md.events = [...((md.events as Obj[]) ?? []), ...carry.events];
    if (carry.summaries.length) md.summaries = [...((md.summaries as Obj[]) ?? []), ...carry.summaries];
  }
  if (!turns.length) return null;
  const config: Record<string, unknown> = { source: "letta", agent: name };
  if (system.length || typeof a.system === "string") config.system_messages = system.length ? system : [a.system];
  if (isObj(a.llm_config) && typeof a.llm_config.model === "string") config.model = a.llm_config.model;
  if (agentType) config.agent_type = agentType;
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
    created_at: d.check(() => optTime(a, "created_at", `${path}.created_at`)),
    updated_at: d.check(() => optTime(a, "updated_at", `${path}.updated_at`)),
    turns,
    allowMissingParents: false,
  };
}

type Image = { source: Obj & { type: string } };
type Parts = { texts: string[]; reasoning: string[]; hidden: number; images: Image[]; toolCalls: Call[]; toolReturns: { id: string; status?: string; text: string }[] };

/** A message's content: a string or Letta's typed parts (letta_message_content.py), each part read; a defect noted in `d`. */
function partsOf(c: unknown, path: string, d: Defects): Parts {
  const out: Parts = { texts: [], reasoning: [], hidden: 0, images: [], toolCalls: [], toolReturns: [] };
  if (c === undefined || c === null) return out;
  if (typeof c === "string") {
    if (c) out.texts.push(c);
    return out;
  }
  if (!Array.isArray(c)) {
    d.add(path, `must be a string or an array of parts, got ${typeName(c)}`);
    return out;
  }
  c.forEach((p, k) => {
    const pp = `${path}[${k}]`;
    if (!isObj(p)) return d.add(pp, "must be an object");
    switch (p.type) {
      case "text":
        if (typeof p.text !== "string") return d.add(`${pp}.text`, "missing (a text part has text)");
        if (p.text) out.texts.push(p.text);
        return;
      case "reasoning":
        if (typeof p.reasoning === "string" && p.reasoning) out.reasoning.push(p.reasoning);
        return;
      case "summarized_reasoning": {
        const s = Array.isArray(p.summary) ? p.summary.map((x) => (isObj(x) && typeof x.text === "string" ? x.text : "")).filter(Boolean) : [];
        if (s.length) out.reasoning.push(s.join("\n"));
        else out.hidden++;
        return;
      }
      case "redacted_reasoning":
      case "omitted_reasoning":
        out.hidden++;
        return;
      case "image": {
        const src = p.source;
        if (!isObj(src) || typeof src.type !== "string" || !["url", "base64", "letta"].includes(src.type)) return d.add(`${pp}.source`, "must be an image source (url, base64 or letta)");
        if (src.type === "url" && typeof src.url !== "string") return d.add(`${pp}.source.url`, "missing");
        if (src.type === "base64" && typeof src.data !== "string") return d.add(`${pp}.source.data`, "missing");
        if (src.type === "letta" && typeof src.file_id !== "string") return d.add(`${pp}.source.file_id`, "missing");
        out.images.push({ source: src as Obj & { type: string } });
        return;
      }
      case "tool_call":
        if (typeof p.id !== "string" || typeof p.name !== "string") return d.add(pp, "a tool_call part has id and name");
        out.toolCalls.push({ id: p.id, name: p.name, arguments: JSON.stringify(p.input ?? {}), result: null });
        return;
      case "tool_return":
        if (typeof p.tool_call_id !== "string") return d.add(`${pp}.tool_call_id`, "missing");
        out.toolReturns.push({ id: p.tool_call_id, status: p.is_error === true ? "error" : "success", text: typeof p.content === "string" ? p.content : "" });
        return;
      default:
        d.add(`${pp}.type`, `must be one of Letta's content parts (text, image, tool_call, tool_return, reasoning, redacted_reasoning, omitted_reasoning, summarized_reasoning), got ${JSON.stringify(p.type ?? null)}`);
    }
  });
  return out;
}

function callsOf(m: Obj, mp: string, i: number, d: Defects): Call[] {
  const calls: Call[] = [];
  (d.check(() => optArray(m, "tool_calls", `${mp}.tool_calls`)) ?? []).forEach((c, k) => {
    const cp = `${mp}.tool_calls[${k}]`;
    if (!isObj(c) || !isObj(c.function)) return d.add(`${cp}.function`, "missing (a tool call has function.name and function.arguments)");
    const fname = d.check(() => optString(c.function as Obj, "name", `${cp}.function.name`));
    if (!fname) return d.add(`${cp}.function.name`, "missing");
    const args = d.check(() => optString(c.function as Obj, "arguments", `${cp}.function.arguments`)) ?? "";
    calls.push({ id: d.check(() => optString(c, "id", `${cp}.id`)) ?? `${i}:${k}`, name: fname, arguments: args, result: null });
  });
  return calls;
}

/** A tool's return as text: func_response is a string, or parts (text and images) since tool returns may carry images. */
function returnText(v: unknown, path: string, d: Defects, bump: (k: string) => void): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === "string") return v;
  if (!Array.isArray(v)) {
    d.add(path, `must be a string or an array of parts, got ${typeName(v)}`);
    return undefined;
  }
  const texts: string[] = [];
  for (const p of v) {
    if (isObj(p) && p.type === "text" && typeof p.text === "string") texts.push(p.text);
    else if (isObj(p) && p.type === "image") bump("letta_tool_return_image");
  }
  return texts.join("\n");
}

type Packed = { type: string; message?: string; compaction_stats?: unknown; raw: Obj };

/** Letta's packed user-side JSON (system.py: user_message, heartbeat, login, system_alert), or null for plain text. */
function unpack(text: string): Packed | null {
  const t = text.trim();
  if (!t.startsWith("{")) return null;
  try {
    const j = JSON.parse(t);
    if (isObj(j) && typeof j.type === "string") return { type: j.type, message: typeof j.message === "string" ? j.message : undefined, compaction_stats: j.compaction_stats, raw: j };
  } catch {
    // plain text that starts with a brace
  }
  return null;
}

/** A tool message's text content is package_function_response's {"status", "message", "time"}: its message. */
function unpackReturn(text: string): string {
  const t = text.trim();
  if (!t.startsWith("{")) return text;
  try {
    const j = JSON.parse(t);
    if (isObj(j) && "status" in j && "message" in j) return typeof j.message === "string" ? j.message : JSON.stringify(j.message);
  } catch {
    // not packed
  }
  return text;
}

/** An image Memscope can point at: a URL, or a file Letta stored (its file id). Base64 bytes have no place: see imageNote. */
function imageFile(img: Image, side: "user" | "assistant"): MessageFileInput | null {
  const s = img.source;
  if (s.type === "url" && typeof s.url === "string" && s.url.length <= 4000 && !s.url.startsWith("data:")) return { type: "image", transfer_method: "remote_url", url: s.url, upload_file_id: null, belongs_to: side };
  if (s.type === "letta" && typeof s.file_id === "string" && s.file_id.length <= 200) return { type: "image", transfer_method: "local_file", upload_file_id: s.file_id, url: null, belongs_to: side };
  if (s.type === "base64" && typeof s.data === "string") return { type: "image", transfer_method: "local_file", upload_file_id: `sha256:${sha256Hex(s.data)}`, url: null, belongs_to: side };
  return null;
}

/** What the turn's metadata keeps of an image: its source, media type, and for inline bytes their digest and size (the bytes are left out, counted as letta_image_data). */
function imageNote(img: Image, messageId: string): Obj {
  const s = img.source;
  const note: Obj = { message_id: messageId, source: s.type };
  if (typeof s.media_type === "string") note.media_type = s.media_type;
  if (typeof s.url === "string") note.url = s.url.startsWith("data:") ? `${s.url.slice(0, 40)}…` : s.url;
  if (typeof s.file_id === "string") note.file_id = s.file_id;
  if (typeof s.data === "string") {
    note.sha256 = sha256Hex(s.data);
    note.base64_chars = s.data.length;
  }
  return note;
}
