import { isObj, optTime, RecordProblem, typeName, type Obj } from "./field-readers";
import { difyRoots } from "./dify-roots";
import { stableUuid } from "./stable-id";
import type { ImportConversation, ImportTurn } from "./types";

// agentscope-java's harness transcript (agentscope-harness, memory/session/SessionEntry.java
// and SessionTranscriptWriter.deriveEntries on main; MemoryFlushManager.offloadToSessionTree
// on v2.0.x): <namespace>/agents/<agent id>/sessions/<session id>.jsonl, the same entries
// again in <session id>.log.jsonl (SessionTree.flush writes both). One entry a line, typed by
// "type":
// - message: {role: USER | ASSISTANT | SYSTEM | TOOL (MsgRole.name()), content: the Msg's
//   text and thinking joined by "\n", toolCallId?, blockTypes? (a placeholder for a message
//   with no text, e.g. an image: content "" and the block types)};
// - tool_use: {toolCallId, name, input (an object; over 500 chars a _preview map), truncated, originalSize?};
// - tool_result: {toolCallId, name, output (text, cut at 1000 chars), outputBlockTypes, truncated, originalSize?};
// - summary: {summary, format}; compaction: {firstKeptEntryId, summaryEntryId} (non-destructive);
// every entry {id, parentId?, timestamp}: parentId chains the entries into a tree (two replicas
// appending after the same entry make a branch); timestamp as Jackson's JavaTimeModule writes an
// Instant (decimal epoch seconds; an ISO string when WRITE_DATES_AS_TIMESTAMPS is off).
// v2.0.x wrote only message entries, tools rendered into content: "[tool_call: name({json})]"
// and "[tool_result: name] output" (role TOOL), with the first call's id as toolCallId.

export type HarnessEntry = {
  type: "message" | "tool_use" | "tool_result" | "summary" | "compaction";
  id: string;
  parentId: string | null;
  time?: string;
  raw: Obj;
};

const TYPES = new Set(["message", "tool_use", "tool_result", "summary", "compaction"]);
const ROLES = new Set(["USER", "ASSISTANT", "SYSTEM", "TOOL"]);

/** A harness line as an entry, or a RecordProblem naming its first bad field (the caller collects every line's). */
export function harnessEntry(v: unknown): HarnessEntry {
  if (!isObj(v)) throw new RecordProblem(undefined, `must be a session entry object, got ${typeName(v)}`);
  if (typeof v.type !== "string" || !TYPES.has(v.type)) throw new RecordProblem("type", `must be message, tool_use, tool_result, summary or compaction, got ${JSON.stringify(v.type ?? null)}`);
  if (typeof v.id !== "string" || !v.id) throw new RecordProblem("id", "missing (each entry has an id)");
  if (v.parentId !== undefined && v.parentId !== null && typeof v.parentId !== "string") throw new RecordProblem("parentId", `must be an entry id, got ${typeName(v.parentId)}`);
  const time = instant(v.timestamp);
  const str = (k: string, need: boolean) => {
    if (v[k] === undefined || v[k] === null) {
      if (need) throw new RecordProblem(k, `missing (a ${v.type} entry has one)`);
      return;
    }
    if (typeof v[k] !== "string") throw new RecordProblem(k, `must be a string, got ${typeName(v[k])}`);
  };
  if (v.type === "message") {
    if (typeof v.role !== "string" || !ROLES.has(v.role.toUpperCase())) throw new RecordProblem("role", `must be USER, ASSISTANT, SYSTEM or TOOL, got ${JSON.stringify(v.role ?? null)}`);
    str("content", false);
    if (v.blockTypes !== undefined && v.blockTypes !== null && !(Array.isArray(v.blockTypes) && v.blockTypes.every((b) => typeof b === "string"))) throw new RecordProblem("blockTypes", "must be a list of block type names");
  } else if (v.type === "tool_use") {
    str("toolCallId", true);
    str("name", true);
    if (v.input !== undefined && v.input !== null && !isObj(v.input)) throw new RecordProblem("input", `must be an object, got ${typeName(v.input)}`);
  } else if (v.type === "tool_result") {
    str("toolCallId", true);
    str("output", false);
  } else if (v.type === "summary") {
    str("summary", true);
  }
  return { type: v.type as HarnessEntry["type"], id: v.id, parentId: (v.parentId as string | null | undefined) ?? null, time, raw: v };
}

/** An Instant as Jackson writes it: decimal epoch seconds (nanos after the point) or ISO 8601. */
function instant(v: unknown): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === "number") {
    if (!Number.isFinite(v) || v < 0 || v > 253402300799) throw new RecordProblem("timestamp", `must be epoch seconds, got ${v}`);
    return new Date(Math.round(v * 1000)).toISOString();
  }
  if (typeof v === "string") return optTime({ timestamp: v }, "timestamp");
  throw new RecordProblem("timestamp", `must be epoch seconds or an ISO time, got ${typeName(v)}`);
}

type Call = { id: string; name: string; arguments: string; result: string | null; truncated?: boolean; original_size?: number; result_truncated?: boolean; result_original_size?: number; result_block_types?: string[] };
type Build = { id: string; parent: Build | null; query: string[]; answer: string[]; calls: Call[]; ids: string[]; leaf: string; created?: string; first: HarnessEntry; blockTypes: string[] };

const OLD_CALL = /^\[tool_call: ([^(\]]+)(?:\(([\s\S]*)\))?\]$/;
const OLD_RESULT = /^\[tool_result(?:: ([^\]]+))?\] ?([\s\S]*)$/;

/**
 * One session's entries (append order, ids unique) as a conversation of turns: a USER message
 * opens a turn under the turn of its parent entry; what follows it on the parentId chain
 * (assistant text, tool calls and results) belongs to it. An answer whose parent is not the
 * turn's last entry (another replica answered the same question) is a sibling turn.
 */
export function harnessConversation(
  key: { namespace: string | null; agent: string; session: string },
  entries: HarnessEntry[],
  files: string[],
  owner: string | null,
  appId: string,
  unrepresented: Record<string, number>,
): ImportConversation | null {
  const seat = `${key.namespace ? `${key.namespace}/` : ""}${key.agent}/${key.session}`;
  const count = (reason: string) => (unrepresented[reason] = (unrepresented[reason] ?? 0) + 1);
  const parentOf = new Map<string, string | null>();
  const turnOf = new Map<string, Build>();
  const builds: Build[] = [];
  const system: string[] = [];
  const summaries: Obj[] = [];
  const compactions: Obj[] = [];
  const up = (id: string | null): Build | null => {
    for (let x = id, n = 0; x && n < 100_000; x = parentOf.get(x) ?? null, n++) {
      const t = turnOf.get(x);
      if (t) return t;
    }
    return null;
  };
  const open = (e: HarnessEntry, parent: Build | null, query: string): Build => {
    const b: Build = { id: stableUuid(`agentscope-turn:${seat}:${e.id}`), parent, query: query ? [query] : [], answer: [], calls: [], ids: [], leaf: e.id, created: e.time, first: e, blockTypes: [] };
    builds.push(b);
    return b;
  };
  for (const e of entries) {
    parentOf.set(e.id, e.parentId);
    const r = e.raw;
    if (e.type === "summary") {
      summaries.push({ id: e.id, parent_id: e.parentId, summary: r.summary, format: r.format ?? null, at: e.time ?? null });
      count("agentscope_compaction_summary");
      continue;
    }
    if (e.type === "compaction") {
      compactions.push({ id: e.id, first_kept_entry_id: r.firstKeptEntryId ?? null, summary_entry_id: r.summaryEntryId ?? null, at: e.time ?? null });
      continue;
    }
    const role = e.type === "message" ? String(r.role).toUpperCase() : null;
    const content = typeof r.content === "string" ? r.content : "";
    const blockTypes = Array.isArray(r.blockTypes) ? (r.blockTypes as string[]).filter((t) => t !== "empty") : [];
    if (role === "SYSTEM") {
      if (content) system.push(content);
      continue;
    }
    let turn: Build;
    if (role === "USER") {
      turn = open(e, up(e.parentId), content);
    } else {
      const parent = up(e.parentId);
      if (!parent) turn = open(e, null, "");
      else if (role === "ASSISTANT" && parent.leaf !== e.parentId && (parent.answer.length || parent.calls.length)) {
        // A second answer to the same question (its parent is not where this turn ended): a sibling.
        turn = open(e, parent.parent, "");
        turn.query = [...parent.query];
      } else turn = parent;
    }
    turn.ids.push(e.id);
    turn.leaf = e.id;
    turnOf.set(e.id, turn);
    if (blockTypes.length) {
      turn.blockTypes.push(...blockTypes);
      for (const t of blockTypes) count(`agentscope_${t}`);
    }
    if (role === "USER") {
      if (turn.first !== e && content) turn.query.push(content);
      continue;
    }
    if (role === "ASSISTANT") {
      // v2.0.x: tool calls rendered into the text, one a line.
      const text: string[] = [];
      for (const line of content ? content.split("\n") : []) {
        const m = OLD_CALL.exec(line);
        if (m) turn.calls.push({ id: typeof r.toolCallId === "string" && !turn.calls.some((c) => c.id === r.toolCallId) ? r.toolCallId : `${e.id}:${turn.calls.length}`, name: m[1].trim(), arguments: m[2] ?? "{}", result: null });
        else text.push(line);
      }
      if (text.join("\n").trim()) turn.answer.push(text.join("\n"));
      if (!turn.created || (e.time && e.time > turn.created)) turn.created = e.time ?? turn.created;
      continue;
    }
    if (role === "TOOL") {
      // v2.0.x: a tool result rendered as text, paired by toolCallId (else the oldest call without one).
      const m = OLD_RESULT.exec(content);
      const output = m ? m[2] : content;
      const call = turn.calls.find((c) => c.id === r.toolCallId) ?? turn.calls.find((c) => c.result === null && (!m?.[1] || c.name === m[1].trim()));
      if (call) call.result = output;
      else turn.calls.push({ id: typeof r.toolCallId === "string" ? r.toolCallId : e.id, name: m?.[1]?.trim() ?? "tool", arguments: "", result: output });
      continue;
    }
    if (e.type === "tool_use") {
      const input = isObj(r.input) ? r.input : {};
      const call: Call = { id: String(r.toolCallId), name: String(r.name), arguments: JSON.stringify(input), result: null };
      if (r.truncated === true) {
        call.truncated = true;
        if (typeof r.originalSize === "number") call.original_size = r.originalSize;
      }
      turn.calls.push(call);
      continue;
    }
    // tool_result
    const output = typeof r.output === "string" ? r.output : "";
    const types = Array.isArray(r.outputBlockTypes) ? (r.outputBlockTypes as unknown[]).filter((t): t is string => typeof t === "string") : [];
    for (const t of types) if (t !== "text") count(`agentscope_tool_result_${t}`);
    let call = turn.calls.find((c) => c.id === r.toolCallId && c.result === null);
    if (!call) {
      call = { id: String(r.toolCallId), name: typeof r.name === "string" ? r.name : "tool", arguments: "", result: null };
      turn.calls.push(call);
    }
    call.result = output;
    if (r.truncated === true) {
      call.result_truncated = true;
      if (typeof r.originalSize === "number") call.result_original_size = r.originalSize;
    }
    if (types.some((t) => t !== "text")) call.result_block_types = types;
  }
  if (!builds.length) return null;
  // The active thread: from the session's last entry (what the agent answered last) to the root.
  const last = [...entries].reverse().find((e) => turnOf.has(e.id));
  const active = new Set<Build>();
  for (let b = last ? turnOf.get(last.id)! : null; b && !active.has(b); b = b.parent) active.add(b);
  const conversationId = stableUuid(`agentscope-conversation:${seat}`);
  const turns: ImportTurn[] = builds.map((b) => {
    const metadata: Record<string, unknown> = { source: "agentscope", entry_ids: b.ids, active: active.has(b) };
    if (b.calls.length) metadata.tool_calls = b.calls;
    if (b.blockTypes.length) metadata.block_types = b.blockTypes;
    return {
      id: b.id,
      path: `${files[0]} entry ${b.first.id}`,
      parent_message_id: b.parent ? b.parent.id : null,
      query: b.query.join("\n\n"),
      answer: b.answer.join("\n\n"),
      created_at: b.created,
      files: [],
      metadata,
    };
  });
  difyRoots(turns, conversationId);
  const config: Record<string, unknown> = { source: "agentscope", layout: "harness", agent: key.agent, session_id: key.session, files };
  if (key.namespace) config.namespace = key.namespace;
  if (system.length) config.system_messages = system;
  if (summaries.length) config.compaction_summaries = summaries;
  if (compactions.length) config.compactions = compactions;
  const leaf = last ? turnOf.get(last.id) : undefined;
  if (leaf) config.active_leaf_message_id = leaf.id;
  const times = turns.map((t) => t.created_at).filter((t): t is string => !!t).sort();
  return {
    externalId: `harness:${seat}`,
    record: `session ${seat}`,
    id: conversationId,
    app_id: appId,
    end_user_id: owner,
    name: `${key.agent} ${key.session}`.slice(0, 255),
    mode: "agent-chat",
    model_config: config,
    created_at: times[0],
    updated_at: times.at(-1),
    turns,
    allowMissingParents: false,
  };
}
