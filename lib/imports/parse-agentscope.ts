import { isObj, optTime, RecordProblem, typeName, type Obj } from "./field-readers";
import { Lines, markdownItemsLazily } from "./markdown-items";
import { runSteps, STEP, type Steps } from "./steps";
import { ImportLimitError } from "./upload-limits";
import { sha256Hex, stableUuid } from "./stable-id";
import { harnessConversation, harnessEntry, type HarnessEntry } from "./agentscope-harness";
import type { ImportConversation, ImportMemory, ImportProblem, ImportTurn, ParsedImport } from "./types";

// An AgentScope 2.x workspace folder (uploaded as a zip):
// - sessions/<session_id>/context.jsonl: the session's messages, one Msg per line as
//   Msg.model_dump_json() writes it (src/agentscope/workspace/_base.py offload_context;
//   src/agentscope/message/_base.py, _block.py): {id, name, role, content: [text |
//   thinking | tool_call | tool_result | data | hint blocks], metadata, created_at}; also
//   read as sessions/<session_id>.log.jsonl, and in the older transcript form (content a
//   string or tool_use blocks with an input object, `timestamp` instead of created_at);
// - MEMORY.md and the memory folder beside it (memory/YYYY-MM-DD.md daily notes, the
//   agentic-memory middleware's Memory/ topic files): one memory per list item.
// - agentscope-java's harness workspace (agentscope-harness.ts): [<namespace>/]agents/<agent>/
//   sessions/<session>.jsonl and .log.jsonl (typed entries), [<namespace>/]MEMORY.md and
//   [<namespace>/]memory/YYYY-MM-DD.md (MemoryFlushManager's "## Memory Flush — <instant>"
//   sections); the namespace folder (IsolationScope) owns the sessions and memories in it.
// A session with a defective line is left out whole, every defect named.
// A session held twice (the same transcript copied, or a copy that grew) is one
// conversation: its messages are joined by their ids, so an identical copy adds nothing.

/** maxRecords: messages and memories past it are an ImportLimitError (records), thrown as soon as they are found. */
export type AgentScopeOptions = { app_id?: string; end_user_id?: string | null; maxRecords?: number };

type Msg = { id: string; role: string; name: string | null; created?: string; blocks: Obj[]; text: string; line: string };

export function parseAgentScope(files: Map<string, Uint8Array>, opts: AgentScopeOptions = {}): ParsedImport {
  return runSteps(agentScopeSteps(files, opts));
}

function* agentScopeSteps(files: Map<string, Uint8Array>, opts: AgentScopeOptions): Steps<ParsedImport> {
  const unrepresented: Record<string, number> = {};
  const out: ParsedImport = { format: "agentscope", source: "agentscope", conversations: [], memories: [], problems: [], skipped: 0, unrepresented };
  const names = [...files.keys()].sort();
  const root = workspaceRoot(names);
  const sessions = new Map<string, { msgs: Map<string, Msg>; files: string[]; hashes: Set<string>; defects: ImportProblem[] }>();
  const harness = new Map<string, { key: HarnessKey; entries: Map<string, HarnessEntry>; files: string[]; hashes: Set<string>; defects: ImportProblem[] }>();
  const max = opts.maxRecords ?? Infinity;
  let records = 0;
  let sinceYield = 0;
  const count = (n: number) => {
    sinceYield += n;
    records += n;
    if (records > max) throw new ImportLimitError("records", `more than ${max} messages and memories`);
  };
  for (const name of names) {
    const rel = name.slice(root.length);
    const bytes = files.get(name)!;
    const h = HARNESS_SESSION.exec(rel);
    const s = h ? null : (/^sessions\/([^/]+)\/context\.jsonl$/.exec(rel) ?? /^sessions\/([^/]+?)\.log\.jsonl$/.exec(rel) ?? /^sessions\/([^/]+?)\.jsonl$/.exec(rel));
    const mem = h || s ? null : MEMORY_FILE.exec(rel);
    if (!h && !s && !mem) {
      out.skipped!++; // AGENTS.md, sessions.json, skills, knowledge, tasks, tool results: not conversation or memory
      continue;
    }
    const text = utf8(bytes);
    if (text === null) {
      // A defect of the whole file: named, and what it holds is not imported.
      const problem = { record: rel, message: "not UTF-8 text: the file is left out" };
      if (h) harnessOf(harness, h).defects.push(problem);
      else out.problems.push(problem);
      continue;
    }
    if (h) {
      const entry = harnessOf(harness, h);
      const hash = sha256Hex(text);
      if (entry.hashes.has(hash)) continue; // <id>.log.jsonl holds what <id>.jsonl holds: nothing more to read
      entry.hashes.add(hash);
      entry.files.push(rel);
      const lines = new Lines(text);
      for (let i = 0; lines.at(i) !== undefined; i++) {
        const line = lines.at(i)!;
        if (!line.trim()) continue;
        count(1);
        if (sinceYield >= STEP) {
          sinceYield = 0;
          yield;
        }
        try {
          const e = harnessEntry(JSON.parse(line));
          if (!entry.entries.has(e.id)) entry.entries.set(e.id, e);
        } catch (e) {
          entry.defects.push(lineProblem(`${rel} line ${i + 1}`, e));
        }
      }
      continue;
    }
    if (s) {
      const id = s[1];
      const entry = sessions.get(id) ?? { msgs: new Map<string, Msg>(), files: [] as string[], hashes: new Set<string>(), defects: [] as ImportProblem[] };
      sessions.set(id, entry);
      const hash = sha256Hex(text);
      if (entry.hashes.has(hash)) {
        out.skipped!++; // an identical copy
        continue;
      }
      entry.hashes.add(hash);
      entry.files.push(rel);
      const lines = new Lines(text); // cut as read: a session of a million lines stops at the records limit
      for (let i = 0; lines.at(i) !== undefined; i++) {
        const line = lines.at(i)!;
        if (!line.trim()) continue;
        count(1);
        if (sinceYield >= STEP) {
          sinceYield = 0;
          yield;
        }
        try {
          const m = msgOf(JSON.parse(line), line);
          if (!entry.msgs.has(m.id)) entry.msgs.set(m.id, m);
        } catch (e) {
          entry.defects.push(lineProblem(`${rel} line ${i + 1}`, e));
        }
      }
      continue;
    }
    const namespace = mem![1] ?? null;
    const file = mem![2];
    const day = /(\d{4}-\d{2}-\d{2})\.md$/.exec(file)?.[1];
    // The namespace folder is the owner (IsolationScope USER: the user id; SESSION: the session id).
    const user = (namespace ?? opts.end_user_id ?? "agentscope").slice(0, 200);
    for (const it of markdownItemsLazily(text, max - records)) {
      count(1);
      if (sinceYield >= STEP) {
        sinceYield = 0;
        yield;
      }
      // MEMORY.md's pointers to topic files are an index, not memories.
      if (file === "MEMORY.md" && /^\[[^\]]*\]\([^)]+\.md\)\s*(?:[-–—:].{0,80})?$/.test(it.text)) continue;
      // MemoryFlushManager heads each flush of a daily note "## Memory Flush — <instant>": the item's time.
      const flushed = it.section ? /Memory Flush\s*[—-]\s*(\S+)/.exec(it.section)?.[1] : undefined;
      let created = day ? `${day}T00:00:00.000Z` : undefined;
      if (flushed) {
        try {
          created = optTime({ t: flushed }, "t") ?? created;
        } catch {
          // a heading that only looks like a flush: the day's date stays
        }
      }
      out.memories.push({
        externalId: `agentscope:${user}:${rel}:${sha256Hex(it.text)}`,
        record: `${rel}:${it.line}`,
        user_id: user,
        app_id: opts.app_id ?? "agentscope",
        memory_type: "fact",
        content: it.text.slice(0, 10_000),
        structured_data: { source: "agentscope", kind: day ? "daily_note" : "memory_md", path: rel, line: it.line, ...(namespace ? { namespace } : {}), ...(it.section ? { section: it.section } : {}) },
        status: "active",
        created_at: created,
        history: [],
      } satisfies ImportMemory);
    }
  }
  let built = 0;
  for (const [sessionId, s] of sessions) {
    built += s.msgs.size + 1;
    if (built >= STEP) {
      built = 0;
      yield;
    }
    if (s.defects.length) {
      leaveOut(out, `sessions/${sessionId}`, s.defects);
      continue;
    }
    const conv = sessionConversation(sessionId, [...s.msgs.values()], s.files, opts, unrepresented);
    if (conv) out.conversations.push(conv);
    else out.skipped!++;
  }
  for (const s of harness.values()) {
    built += s.entries.size + 1;
    if (built >= STEP) {
      built = 0;
      yield;
    }
    const seat = `${s.key.namespace ? `${s.key.namespace}/` : ""}${s.key.agent}/${s.key.session}`;
    if (s.defects.length) {
      leaveOut(out, `session ${seat}`, s.defects);
      continue;
    }
    const owner = s.key.namespace ?? opts.end_user_id ?? null;
    const conv = harnessConversation(s.key, [...s.entries.values()], s.files, owner, opts.app_id ?? "agentscope", unrepresented);
    if (conv) out.conversations.push(conv);
    else out.skipped!++;
  }
  return out;
}

type HarnessKey = { namespace: string | null; agent: string; session: string };
// WorkspaceManager.getSessionDir: [<namespace>/]agents/<agent id>/sessions/<session id>.jsonl or .log.jsonl.
const HARNESS_SESSION = /^(?:(.+)\/)?agents\/([^/]+)\/sessions\/([^/]+?)(?:\.log)?\.jsonl$/;
// [<namespace>/]MEMORY.md, [<namespace>/]memory/*.md (and the Python middleware's Memory/ topic files).
const MEMORY_FILE = /^(?:((?:(?!agents\/)[^/]+\/)*?[^/]+)\/)?(MEMORY\.md|(?:memory|Memory)\/[^/]+\.md)$/;

function harnessOf(all: Map<string, { key: HarnessKey; entries: Map<string, HarnessEntry>; files: string[]; hashes: Set<string>; defects: ImportProblem[] }>, m: RegExpExecArray) {
  const key: HarnessKey = { namespace: m[1] ?? null, agent: m[2], session: m[3] };
  const k = JSON.stringify([key.namespace, key.agent, key.session]);
  let e = all.get(k);
  if (!e) all.set(k, (e = { key, entries: new Map(), files: [], hashes: new Set(), defects: [] }));
  return e;
}

/**
 * The workspace's root inside the zip: "" when its own files are at the top, else the one
 * folder everything is in when that folder is the workspace (it holds AGENTS.md, tools.json,
 * skills/, knowledge/, or the Python layout's sessions/ and memory/). A lone namespace folder
 * (alice/agents/..., alice/MEMORY.md) is not stripped: it names the owner.
 */
function workspaceRoot(names: string[]): string {
  if (!names.length || names.some((n) => !n.includes("/"))) return "";
  const first = names[0].split("/")[0];
  if (!names.every((n) => n.split("/")[0] === first)) return "";
  const inner = names.map((n) => n.slice(first.length + 1));
  const workspace = inner.some((n) => /^(AGENTS\.md|tools\.json|KNOWLEDGE\.md|skills\/|knowledge\/|sessions\/)/.test(n));
  const pythonMemory = !inner.some((n) => n.startsWith("agents/")) && inner.some((n) => n === "MEMORY.md" || /^(memory|Memory)\//.test(n));
  return workspace || pythonMemory ? `${first}/` : "";
}

function utf8(bytes: Uint8Array): string | null {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes).replace(/^\uFEFF/, "");
  } catch {
    return null;
  }
}

/**
 * A session left out whole: each defect named under the session's record (where it is, in its
 * message), then why it was left out. The runner counts a record's problems as one failure.
 */
function leaveOut(out: ParsedImport, record: string, defects: ImportProblem[]) {
  for (const d of defects) out.problems.push({ record, ...(d.field ? { field: d.field } : {}), message: `${d.record}: ${d.message}` });
  out.problems.push({ record, message: `left out: ${defects.length} defect${defects.length > 1 ? "s" : ""} (named above); a session is imported whole or not at all` });
}

function lineProblem(record: string, e: unknown): ImportProblem {
  return e instanceof RecordProblem ? { record, field: e.field, message: e.message } : { record, message: `not JSON: ${(e as Error).message}` };
}

function msgOf(v: unknown, line: string): Msg {
  if (!isObj(v)) throw new RecordProblem(undefined, `must be a message object, got ${typeName(v)}`);
  const role = v.role;
  if (role !== "user" && role !== "assistant" && role !== "system") throw new RecordProblem("role", `must be user, assistant or system, got ${JSON.stringify(role ?? null)}`);
  const created = optTime(v, "created_at") ?? timestamp(v.timestamp);
  const blocks: Obj[] = [];
  let text = "";
  if (typeof v.content === "string") text = v.content;
  else if (Array.isArray(v.content)) {
    v.content.forEach((b, k) => {
      if (!isObj(b) || typeof b.type !== "string") throw new RecordProblem(`content[${k}].type`, "missing (each block has a type)");
      blocks.push(b);
    });
    text = blocks.filter((b) => b.type === "text" && typeof b.text === "string").map((b) => b.text as string).join("\n");
  } else if (v.content !== undefined && v.content !== null) throw new RecordProblem("content", `must be a string or a list of blocks, got ${typeName(v.content)}`);
  const id = typeof v.id === "string" && v.id ? v.id : `sha256:${sha256Hex(line.trim())}`;
  return { id, role, name: typeof v.name === "string" ? v.name : null, created, blocks, text, line };
}

/** The older form's "%Y-%m-%d %H:%M:%S.%f" (local time of the agent's machine, read as UTC). */
function timestamp(v: unknown): string | undefined {
  if (typeof v !== "string" || !v) return undefined;
  return optTime({ t: v.replace(" ", "T") }, "t", "timestamp");
}

const KNOWN_BLOCKS = new Set(["text", "thinking", "tool_call", "tool_use", "tool_result"]);

type Call = { id: string; name: string; arguments: string; result: string | null };

function sessionConversation(sessionId: string, msgs: Msg[], files: string[], opts: AgentScopeOptions, unrepresented: Record<string, number>): ImportConversation | null {
  msgs.sort((a, b) => (a.created ?? "").localeCompare(b.created ?? ""));
  const turns: ImportTurn[] = [];
  const system: string[] = [];
  type Open = { query: string[]; answer: string[]; calls: Call[]; thinking: string[]; first: Msg; ids: string[]; blocks: Obj[] };
  let open: Open | null = null;
  const close = () => {
    if (!open) return;
    const metadata: Record<string, unknown> = { source: "agentscope", message_ids: open.ids };
    if (open.calls.length) metadata.tool_calls = open.calls;
    if (open.thinking.length) metadata.thinking = open.thinking.join("\n\n");
    if (open.blocks.length) metadata.blocks = open.blocks;
    turns.push({ id: stableUuid(`agentscope-turn:${sessionId}:${open.first.id}`), path: `message ${open.first.id}`, parent_message_id: turns.at(-1)?.id ?? null, query: open.query.join("\n\n"), answer: open.answer.join("\n\n"), created_at: open.first.created, files: [], metadata });
    open = null;
  };
  // Blocks Memscope has no place for (data: images, audio, video; hint): kept in the turn's metadata, counted.
  const keepOther = (o: Open, m: Msg) => {
    for (const b of m.blocks) {
      if (KNOWN_BLOCKS.has(b.type as string)) continue;
      o.blocks.push({ message_id: m.id, ...b });
      unrepresented[`agentscope_${String(b.type)}`] = (unrepresented[`agentscope_${String(b.type)}`] ?? 0) + 1;
    }
  };
  for (const m of msgs) {
    const results = m.blocks.filter((b) => b.type === "tool_result");
    if (m.role === "system" && !results.length) {
      if (m.text) system.push(m.text);
      continue;
    }
    // A user message that only carries tool results belongs to the turn in progress.
    const speaks = m.role === "user" && (m.text || !results.length);
    if (speaks) {
      if (open && ((open as Open).answer.length || (open as Open).calls.length)) close();
      open ??= { query: [], answer: [], calls: [], thinking: [], first: m, ids: [], blocks: [] };
      open.ids.push(m.id);
      if (m.text) open.query.push(m.text);
      keepOther(open, m);
      continue;
    }
    const o: Open = (open ??= { query: [], answer: [], calls: [], thinking: [], first: m, ids: [], blocks: [] });
    o.ids.push(m.id);
    if (m.role === "assistant" && m.text) o.answer.push(m.text);
    keepOther(o, m);
    for (const b of m.blocks) {
      if (b.type === "thinking" && typeof b.thinking === "string") o.thinking.push(b.thinking);
      else if (b.type === "tool_call" || b.type === "tool_use") {
        o.calls.push({ id: String(b.id ?? `${m.id}:${o.calls.length}`), name: String(b.name ?? "tool"), arguments: typeof b.input === "string" ? b.input : JSON.stringify(b.input ?? {}), result: null });
      } else if (b.type === "tool_result") {
        const output = typeof b.output === "string" ? b.output : Array.isArray(b.output) ? b.output.map((x) => (isObj(x) && typeof x.text === "string" ? x.text : "")).join("\n") : JSON.stringify(b.output ?? null);
        const call = o.calls.find((c) => c.id === b.id);
        if (call) call.result = output;
        else o.calls.push({ id: String(b.id ?? ""), name: String(b.name ?? "tool"), arguments: "", result: output });
      }
    }
  }
  close();
  if (!turns.length) return null;
  const config: Record<string, unknown> = { source: "agentscope", session_id: sessionId, files };
  if (system.length) config.system_messages = system;
  const agent = msgs.find((m) => m.role === "assistant")?.name;
  if (agent) config.agent = agent;
  return {
    externalId: `session:${sessionId}`,
    record: `sessions/${sessionId}`,
    id: stableUuid(`agentscope-conversation:${sessionId}`),
    app_id: opts.app_id ?? "agentscope",
    end_user_id: opts.end_user_id ?? msgs.find((m) => m.role === "user" && m.name)?.name ?? null,
    name: `Session ${sessionId}`.slice(0, 255),
    mode: "agent-chat",
    model_config: config,
    created_at: turns[0].created_at,
    turns,
    allowMissingParents: false,
  };
}
