import type { MessageFileInput } from "../messages/schemas";
import { Defects, isObj, optArray, optString, optTime, RecordProblem, typeName, type Obj } from "./field-readers";
import { markdownItems } from "./markdown-items";
import { sha256Hex, stableUuid } from "./stable-id";
import type { ImportConversation, ImportMemory, ImportTurn } from "./types";
import { difyRoots } from "./dify-roots";

// Claude.ai's data export: conversations.json, an array of {uuid, name, created_at,
// updated_at, chat_messages: [{uuid, sender: human|assistant, text, content: [text |
// thinking | tool_use | tool_result parts], attachments, files, created_at,
// parent_message_uuid}]}, and memories.json ([{conversations_memory, project_memories,
// account_uuid}]).
//
// A human message opens a turn; each assistant message answering it (its child by
// parent_message_uuid) closes one, so a retried answer is a sibling turn and an edited
// question a sibling question. Exports without parent_message_uuid are a single thread in
// array order. The export has no pointer to the branch the user last saw: the active leaf
// is taken to be the newest message (by created_at, then position), because claude.ai
// reopens a conversation on the branch last written to, and an edit or a retry is always
// the newest message when it is made. Its path to the root carries metadata.active = true.

export type ClaudeOptions = { app_id?: string; end_user_id?: string | null };

/** Claude's parent of a first message: a fixed "nil" UUID (version 4 shaped). */
const CLAUDE_ROOT = "00000000-0000-4000-8000-000000000000";

type Msg = { uuid: string; sender: "human" | "assistant"; parent: string | null | undefined; created?: string; pos: number; path: string; m: Obj };

export function claudeConversation(v: unknown, record: string, opts: ClaudeOptions = {}): ImportConversation | null {
  if (!isObj(v)) throw new RecordProblem(undefined, `must be an object (a conversation), got ${typeName(v)}`);
  // Every defect is named (each message read on its own); a conversation with any is left out whole.
  const d = new Defects(record);
  const convId = d.check(() => optString(v, "uuid"));
  if (!convId && !d.any) d.add("uuid", "missing");
  const created = d.check(() => optTime(v, "created_at"));
  const updated = d.check(() => optTime(v, "updated_at"));
  const name = d.check(() => optString(v, "name"));
  const summary = d.check(() => optString(v, "summary"));
  const raw = d.check(() => optArray(v, "chat_messages")) ?? [];
  const msgs: Msg[] = raw.flatMap((m, i) => {
    const path = `chat_messages[${i}]`;
    if (!isObj(m)) {
      d.add(path, `must be an object, got ${typeName(m)}`);
      return [];
    }
    const before = d.list.length;
    const uuid = d.check(() => optString(m, "uuid", `${path}.uuid`));
    if (!uuid && d.list.length === before) d.add(`${path}.uuid`, "missing");
    const sender = m.sender;
    if (sender !== "human" && sender !== "assistant") d.add(`${path}.sender`, `must be human or assistant, got ${JSON.stringify(sender ?? null)}`);
    const parentRaw = m.parent_message_uuid;
    if (parentRaw !== undefined && parentRaw !== null && typeof parentRaw !== "string") d.add(`${path}.parent_message_uuid`, `must be a string, got ${typeName(parentRaw)}`);
    const at = d.check(() => optTime(m, "created_at", `${path}.created_at`));
    if (d.list.length > before) return [];
    const parent = parentRaw === undefined ? undefined : parentRaw === null || parentRaw === CLAUDE_ROOT || parentRaw === "" ? null : (parentRaw as string);
    return [{ uuid: uuid!, sender: sender as Msg["sender"], parent, created: at, pos: i, path, m }];
  });
  const byId = new Map<string, Msg>();
  for (const x of msgs) {
    const seen = byId.get(x.uuid);
    if (seen) d.add(`${x.path}.uuid`, `repeats the uuid of ${seen.path} (${x.uuid})`);
    else byId.set(x.uuid, x);
  }
  const tree = msgs.some((x) => x.parent !== undefined);
  // Linear exports: each message's parent is the one before it.
  if (!tree) msgs.forEach((x, i) => (x.parent = i ? msgs[i - 1].uuid : null));
  for (const x of msgs) {
    if (x.parent && !byId.has(x.parent)) d.add(`${x.path}.parent_message_uuid`, `names no message of this conversation (${x.parent})`);
  }
  // What each message holds, read now: a defect in any is named with the others.
  const parts = new Map<string, Parts>();
  for (const x of msgs) {
    const p = d.check(() => partsOf(x, x.sender === "human" ? "user" : "assistant"));
    if (p) parts.set(x.uuid, p);
  }
  d.throwAny();
  if (!msgs.length) return null;
  const children = new Map<string | null, Msg[]>();
  for (const x of msgs) {
    const k = x.parent ?? null;
    if (!children.has(k)) children.set(k, []);
    children.get(k)!.push(x);
  }
  // The active path: from the newest message to the root.
  const newest = [...msgs].sort((a, b) => (a.created ?? "").localeCompare(b.created ?? "") || a.pos - b.pos).at(-1)!;
  const active = new Set<string>();
  for (let x: Msg | undefined = newest; x && !active.has(x.uuid); x = x.parent ? byId.get(x.parent) : undefined) active.add(x.uuid);

  const turns: ImportTurn[] = [];
  const turnOf = new Map<string, string>(); // message uuid → the turn that ends with it
  // Breadth first from the roots, so that parents come before children.
  const queue: { x: Msg; parentTurn: string | null }[] = (children.get(null) ?? []).map((x) => ({ x, parentTurn: null }));
  const seen = new Set<string>();
  while (queue.length) {
    const { x, parentTurn } = queue.shift()!;
    if (seen.has(x.uuid)) continue;
    seen.add(x.uuid);
    const kids = children.get(x.uuid) ?? [];
    if (x.sender === "human") {
      const q = parts.get(x.uuid)!;
      const answers = kids.filter((k) => k.sender === "assistant");
      const made = answers.length ? answers : [null];
      for (const a of made) {
        const end = a ?? x;
        const ans: Parts = a ? { ...parts.get(a.uuid)!, files: [...parts.get(a.uuid)!.files] } : { text: "", files: [], calls: [], thinking: [], attachments: [] };
        const id = stableUuid(`claude-turn:${convId}:${end.uuid}`);
        const metadata: Record<string, unknown> = { source: "claude", message_ids: a ? [x.uuid, a.uuid] : [x.uuid], active: active.has(end.uuid) };
        if (ans.calls.length) metadata.tool_calls = ans.calls;
        if (ans.thinking.length) metadata.thinking = ans.thinking.join("\n\n");
        if (q.attachments.length || ans.attachments.length) metadata.attachments = [...q.attachments, ...ans.attachments];
        turns.push({
          id,
          path: a ? `${x.path}+${a.path}` : x.path,
          parent_message_id: parentTurn,
          query: q.text,
          answer: ans.text,
          // The turn is made when its answer is (a retried answer is a later turn, as in Dify).
          created_at: a?.created ?? x.created,
          files: [...q.files, ...ans.files].slice(0, 20),
          metadata,
        });
        turnOf.set(end.uuid, id);
        if (a) for (const k of children.get(a.uuid) ?? []) queue.push({ x: k, parentTurn: id });
      }
      // A human message answered by another human message (rare): the question stands alone.
      for (const k of kids.filter((k) => k.sender === "human")) queue.push({ x: k, parentTurn: turnOf.get(x.uuid) ?? parentTurn });
    } else {
      // An assistant message without a question (a greeting, or its question deleted): a turn with an empty query.
      const ans = parts.get(x.uuid)!;
      const id = stableUuid(`claude-turn:${convId}:${x.uuid}`);
      const metadata: Record<string, unknown> = { source: "claude", message_ids: [x.uuid], active: active.has(x.uuid) };
      if (ans.calls.length) metadata.tool_calls = ans.calls;
      turns.push({ id, path: x.path, parent_message_id: parentTurn, query: "", answer: ans.text, created_at: x.created, files: ans.files.slice(0, 20), metadata });
      turnOf.set(x.uuid, id);
      for (const k of kids) queue.push({ x: k, parentTurn: id });
    }
  }
  const conversationId = stableUuid(`claude-conversation:${convId}`);
  // Several roots (a retried first answer, an edited first question): see dify-roots.ts.
  difyRoots(turns, conversationId);
  const activeLeaf = turnOf.get(newest.uuid) ?? (newest.parent ? turnOf.get(newest.parent) : undefined);
  const config: Record<string, unknown> = { source: "claude", active_leaf_rule: "newest message" };
  if (activeLeaf) config.active_leaf_message_id = activeLeaf;
  if (isObj(v.project)) config.project = v.project;
  if (summary) config.summary = summary;
  return {
    externalId: convId!,
    record,
    id: conversationId,
    app_id: opts.app_id ?? "claude",
    end_user_id: opts.end_user_id ?? (isObj(v.account) && typeof v.account.uuid === "string" ? v.account.uuid : null),
    name: (name || firstLine(turns[0]?.query ?? "") || "(untitled)").slice(0, 255),
    mode: "chat",
    model_config: config,
    created_at: created,
    updated_at: updated,
    turns,
    // Only a later root's parent, the conversation (dify-roots.ts), names no turn: every other parent was checked above.
    allowMissingParents: true,
  };
}

type Parts = { text: string; files: MessageFileInput[]; calls: { id: string; name: string; arguments: string; result: string | null; is_error?: boolean }[]; thinking: string[]; attachments: Obj[] };

/** A message's text (its text parts; `text` when content is absent), tool calls with their results, files. */
function partsOf(x: Msg, side: "user" | "assistant"): Parts {
  const { m, path } = x;
  const out: Parts = { text: "", files: [], calls: [], thinking: [], attachments: [] };
  const texts: string[] = [];
  const content = m.content;
  if (Array.isArray(content) && content.length) {
    content.forEach((p, k) => {
      const pp = `${path}.content[${k}]`;
      if (!isObj(p)) throw new RecordProblem(pp, `must be an object, got ${typeName(p)}`);
      switch (p.type) {
        case "text":
          texts.push(optString(p, "text", `${pp}.text`) ?? "");
          break;
        case "thinking":
          out.thinking.push(optString(p, "thinking", `${pp}.thinking`) ?? "");
          break;
        case "tool_use": {
          const name = optString(p, "name", `${pp}.name`);
          if (!name) throw new RecordProblem(`${pp}.name`, "missing (a tool_use names its tool)");
          out.calls.push({ id: optString(p, "id", `${pp}.id`) ?? `${x.uuid}:${k}`, name, arguments: JSON.stringify(p.input ?? {}), result: null });
          break;
        }
        case "tool_result": {
          const useId = optString(p, "tool_use_id", `${pp}.tool_use_id`);
          const name = optString(p, "name", `${pp}.name`);
          const result = resultText(p.content, `${pp}.content`);
          const call = out.calls.find((c) => (useId ? c.id === useId : c.name === name && c.result === null));
          if (call) {
            call.result = result;
            if (p.is_error === true) call.is_error = true;
          } else out.calls.push({ id: useId ?? `${x.uuid}:${k}`, name: name ?? "tool", arguments: "", result, ...(p.is_error === true ? { is_error: true } : {}) });
          break;
        }
        default:
          // Other parts (token_budget, voice notes, future kinds) carry no text of the turn.
          break;
      }
    });
  } else if (content !== undefined && content !== null && !Array.isArray(content)) {
    throw new RecordProblem(`${path}.content`, `must be an array of parts, got ${typeName(content)}`);
  }
  out.text = texts.length ? texts.join("\n") : (optString(m, "text", `${path}.text`) ?? "");
  for (const [k, a] of optArray(m, "attachments", `${path}.attachments`).entries()) {
    if (!isObj(a)) throw new RecordProblem(`${path}.attachments[${k}]`, "must be an object");
    // Pasted text and documents: their extracted text is what the model read.
    out.attachments.push({ file_name: a.file_name ?? null, file_type: a.file_type ?? null, file_size: a.file_size ?? null, extracted_content: a.extracted_content ?? null });
  }
  for (const key of ["files", "files_v2"] as const) {
    for (const [k, f] of optArray(m, key, `${path}.${key}`).entries()) {
      if (!isObj(f)) throw new RecordProblem(`${path}.${key}[${k}]`, "must be an object");
      const id = (typeof f.file_uuid === "string" && f.file_uuid) || (typeof f.file_name === "string" && f.file_name) || null;
      if (!id) continue;
      const kind = typeof f.file_kind === "string" && f.file_kind !== "image" ? "document" : "image";
      if (out.files.some((x) => x.upload_file_id === id.slice(0, 200))) continue;
      out.files.push({ type: kind, transfer_method: "local_file", upload_file_id: id.slice(0, 200), url: null, belongs_to: side });
    }
  }
  return out;
}

function resultText(c: unknown, path: string): string {
  if (c === undefined || c === null) return "";
  if (typeof c === "string") return c;
  if (!Array.isArray(c)) throw new RecordProblem(path, `must be a string or an array of parts, got ${typeName(c)}`);
  return c.map((p) => (isObj(p) && typeof p.text === "string" ? p.text : isObj(p) ? JSON.stringify(p) : String(p))).join("\n");
}

/** memories.json: the account's memory (and each project's), one memory per item of its text. */
export function claudeMemories(v: unknown, record: string, opts: ClaudeOptions = {}): ImportMemory[] {
  const entries = Array.isArray(v) ? v : [v];
  return entries.flatMap((e, i) => claudeMemoryEntry(e, i, record, opts));
}

/** One element of memories.json (the account's memory and its projects'), the `i`th: an upload streams them one at a time. */
export function claudeMemoryEntry(e: unknown, i: number, record: string, opts: ClaudeOptions = {}): ImportMemory[] {
  const rec = `${record}[${i}]`;
  const out: ImportMemory[] = [];
  if (!isObj(e)) throw new RecordProblem(`[${i}]`, `must be an object, got ${typeName(e)}`);
  const user = opts.end_user_id ?? optString(e, "account_uuid", `[${i}].account_uuid`) ?? "claude";
  const add = (text: string, scope: string) => {
    for (const item of markdownItems(text)) {
      out.push({
        externalId: `claude:memory:${user}:${sha256Hex(`${scope}\n${item.text}`)}`,
        record: `${rec} ${scope}`,
        user_id: user,
        app_id: opts.app_id ?? "claude",
        memory_type: "fact",
        content: item.text,
        structured_data: { source: "claude", kind: scope === "conversations_memory" ? "account_memory" : "project_memory", scope, ...(item.section ? { section: item.section } : {}) },
        status: "active",
        history: [],
      });
    }
  };
  const cm = optString(e, "conversations_memory", `[${i}].conversations_memory`);
  if (cm) add(cm, "conversations_memory");
  if (isObj(e.project_memories)) {
    for (const [pid, text] of Object.entries(e.project_memories)) {
      if (typeof text !== "string") throw new RecordProblem(`[${i}].project_memories.${pid}`, `must be a string, got ${typeName(text)}`);
      add(text, `project_memories.${pid}`);
    }
  }
  return out;
}

function firstLine(text: string): string {
  const line = text.split("\n").find((l) => l.trim()) ?? "";
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}
