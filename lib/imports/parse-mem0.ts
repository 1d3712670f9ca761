import { MEMORY_TYPES, type MemoryType } from "../memories/schemas";
import { isObj, optArray, optObj, optString, optTime, problemOf, RecordProblem, typeName, type Obj } from "./field-readers";
import type { ImportMemory, ImportMemoryEvent, ParsedImport } from "./types";

// Mem0 export: what get_all / GET /v1/memories/ answers: a bare array, {"results": [...]}
// (v1.1 and the open-source Memory), or a page {"count", "next", "previous", "results"}.
// Items: id, memory, user_id, agent_id, app_id, run_id, metadata, categories, hash,
// created_at, updated_at. Optional history(memory_id) events (ADD / UPDATE / DELETE with
// old_memory and new_memory), given as "history" on an item, or a top-level "history"
// (an array of events carrying memory_id, or an object keyed by memory id). A memory whose
// history ends in DELETE is imported archived (curation never destroys).

const MAX_CONTENT = 20_000;

/** Mem0's default categories, read as a Memscope type. Anything else is a fact. */
const CATEGORY_TYPES: Record<string, MemoryType> = {
  user_preferences: "preference",
  preferences: "preference",
  preference: "preference",
  food: "preference",
  music: "preference",
  fashion: "preference",
  entertainment: "preference",
  hobbies: "preference",
  sports: "preference",
  travel: "preference",
  skills: "skill",
  skill: "skill",
  procedural_memory: "skill",
  habits: "pattern",
  routine: "pattern",
  pattern: "pattern",
  patterns: "pattern",
};

export type Mem0Options = { app_id?: string | null };

export function parseMem0(doc: unknown, opts: Mem0Options = {}): ParsedImport {
  const out: ParsedImport = { format: "mem0", source: "mem0", conversations: [], memories: [], problems: [] };
  let items: unknown[];
  let history: unknown;
  if (Array.isArray(doc)) items = doc;
  else if (isObj(doc) && Array.isArray(doc.results)) {
    items = doc.results;
    history = doc.history;
  } else if (isObj(doc) && Array.isArray(doc.memories)) {
    items = doc.memories;
    history = doc.history;
  } else {
    out.problems.push({ record: "file", field: "results", message: "expected an array of memories, or results / memories (an array)" });
    return out;
  }

  const byMemory = new Map<string, { event: Obj; record: string }[]>();
  try {
    collectHistory(history, byMemory);
  } catch (e) {
    out.problems.push(problemOf("history", e));
  }

  const seen = new Set<string>();
  items.forEach((item, i) => {
    const record = `results[${i}]`;
    try {
      if (!isObj(item)) throw new RecordProblem(undefined, `must be an object, got ${typeName(item)}`);
      const id = optString(item, "id");
      if (!id) throw new RecordProblem("id", "missing");
      if (seen.has(id)) throw new RecordProblem("id", `duplicate of an earlier memory ${id}`);
      seen.add(id);
      const own = optArray(item, "history").map((event, k) => ({ event: event as Obj, record: `${record}.history[${k}]` }));
      const events = [...own, ...(byMemory.get(id) ?? [])];
      byMemory.delete(id);
      out.memories.push(memoryOf(item, id, record, events, opts));
    } catch (e) {
      out.problems.push(problemOf(`memory ${typeof (item as Obj)?.id === "string" ? (item as Obj).id : record}`, e));
    }
  });

  // History of memories get_all no longer lists (deleted in Mem0): kept, archived.
  for (const [id, events] of byMemory) {
    const record = `history of ${id}`;
    try {
      const last = [...events].reverse().find((e) => isObj(e.event) && (e.event.new_memory || e.event.old_memory));
      const text = last ? String(last.event.new_memory || last.event.old_memory) : "";
      if (!text) throw new RecordProblem("new_memory", "no text in any event: nothing to keep");
      const first = events[0]?.event ?? {};
      out.memories.push(
        memoryOf(
          { id, memory: text, user_id: first.user_id, agent_id: first.agent_id, app_id: first.app_id, categories: first.categories, metadata: first.metadata, created_at: first.created_at },
          id,
          record,
          events,
          opts,
          true,
        ),
      );
    } catch (e) {
      out.problems.push(problemOf(record, e));
    }
  }
  return out;
}

function collectHistory(history: unknown, into: Map<string, { event: Obj; record: string }[]>) {
  if (history === undefined || history === null) return;
  const add = (memoryId: string, event: unknown, record: string) => {
    if (!isObj(event)) throw new RecordProblem(record, "must be an object");
    into.set(memoryId, [...(into.get(memoryId) ?? []), { event, record }]);
  };
  if (Array.isArray(history)) {
    history.forEach((e, i) => {
      if (!isObj(e) || typeof e.memory_id !== "string") throw new RecordProblem(`history[${i}].memory_id`, "missing");
      add(e.memory_id, e, `history[${i}]`);
    });
  } else if (isObj(history)) {
    for (const [id, events] of Object.entries(history)) {
      if (!Array.isArray(events)) throw new RecordProblem(`history.${id}`, "must be an array of events");
      events.forEach((e, i) => add(id, e, `history.${id}[${i}]`));
    }
  } else {
    throw new RecordProblem("history", "must be an array of events or an object keyed by memory id");
  }
}

function memoryOf(item: Obj, id: string, record: string, events: { event: Obj; record: string }[], opts: Mem0Options, deleted = false): ImportMemory {
  const content = (optString(item, "memory") ?? "").trim();
  if (!content) throw new RecordProblem("memory", "missing or empty");
  if (content.length > MAX_CONTENT) throw new RecordProblem("memory", `longer than ${MAX_CONTENT} characters`);
  const userId = optString(item, "user_id") ?? optString(item, "agent_id") ?? optString(item, "run_id") ?? optString(item, "session_id");
  if (!userId?.trim()) throw new RecordProblem("user_id", "missing (nor agent_id or run_id to stand in)");
  const metadata = optObj(item, "metadata") ?? {};
  const categories = optArray(item, "categories").map((c, k) => {
    if (typeof c !== "string") throw new RecordProblem(`categories[${k}]`, "must be a string");
    return c;
  });
  const created = optTime(item, "created_at");
  const updated = optTime(item, "updated_at") ?? created;

  const history = events.map(({ event, record: er }) => eventOf(event, er));
  history.sort((a, b) => (a.created_at ?? "").localeCompare(b.created_at ?? ""));
  const archived = deleted || history.at(-1)?.type === "archive";

  const mem0: Record<string, unknown> = { id };
  for (const k of ["hash", "agent_id", "run_id", "app_id", "expiration_date", "immutable"] as const) {
    if (item[k] !== undefined && item[k] !== null) mem0[k] = item[k];
  }
  if (categories.length) mem0.categories = categories;
  if (Object.keys(metadata).length) mem0.metadata = metadata;
  return {
    externalId: id,
    record,
    user_id: userId.trim().slice(0, 200),
    app_id: opts.app_id ?? (typeof item.app_id === "string" ? item.app_id : null),
    memory_type: typeOf(metadata, categories),
    content,
    structured_data: { mem0 },
    status: archived ? "archived" : "active",
    created_at: created,
    updated_at: updated,
    history,
  };
}

function typeOf(metadata: Obj, categories: string[]): MemoryType {
  for (const key of ["memory_type", "type"]) {
    const v = metadata[key];
    if (typeof v === "string") {
      if ((MEMORY_TYPES as readonly string[]).includes(v)) return v as MemoryType;
      if (CATEGORY_TYPES[v]) return CATEGORY_TYPES[v];
    }
  }
  for (const c of categories) {
    const t = CATEGORY_TYPES[c.toLowerCase()];
    if (t) return t;
  }
  return "fact";
}

function eventOf(e: Obj, record: string): ImportMemoryEvent {
  const kind = optString(e, "event", `${record}.event`);
  const before = optString(e, "old_memory", `${record}.old_memory`) ?? null;
  const after = optString(e, "new_memory", `${record}.new_memory`) ?? null;
  const created_at = optTime(e, "created_at", `${record}.created_at`);
  const type = kind === "ADD" ? "create" : kind === "UPDATE" ? "update" : kind === "DELETE" ? "archive" : null;
  if (!type) throw new RecordProblem(`${record}.event`, `must be ADD, UPDATE or DELETE, got ${JSON.stringify(kind)}`);
  return { type, before, after: type === "archive" ? null : after, created_at, reason: `Mem0 ${kind}` };
}
