import type { MessageFileInput } from "../messages/schemas";
import { Defects, isObj, optString, optTime, RecordProblem, typeName, type Obj } from "./field-readers";
import { sha256Hex, stableUuid } from "./stable-id";
import type { ImportConversation, ImportMemory, ImportTurn } from "./types";
import { difyRoots } from "./dify-roots";
import { LIMITS } from "./upload-limits";

// ChatGPT's data export, conversations.json: an array of conversations, each a tree of
// message nodes in `mapping` ({id, message|null, parent, children}), with `current_node`
// the leaf the user last saw. There is no public source for the exporter: the layout is
// read from parsers of it (docs/architecture.md names them).
//
// Memscope stores turns (a question and its answer), so the node tree becomes a turn tree:
// each visible user node opens a turn, and the nodes below it up to the next visible user
// node (assistant text, tool calls, tool results, hidden system nodes) make its answer.
// Where that path forks (a regenerated answer) each branch is a turn of its own with the
// same question, a sibling; an edited question is a second user node under the same
// parent, so a sibling turn too. A turn's id is derived from the node it ends at, so a
// re-import finds it. The path from current_node to the root is the active thread: its
// turns carry metadata.active = true and the conversation's model_config names its leaf.
//
// Custom instructions (user_editable_context nodes, without the sentences ChatGPT wraps them
// in), the saved memories ChatGPT put in the model's context (model_editable_context,
// model_set_context) and what the assistant saved through the `bio` tool (a message whose
// recipient is bio: the memory as written) become memories. user.json (the export's account:
// id, email) names the owner: the end user of the conversations and of the memories.
// A tool's result keeps its text whatever its content type (tether_browsing_display's result,
// tether_quote's and sonic_webpage's text, execution_output); citations (message.metadata
// citations and content_references) go to the turn's metadata, counted as unrepresented.
// The layout follows mohamed-chs/convoviz docs/dev/chatgpt-spec.md (v3.0), a specification
// inferred from real exports, and the parsers named in docs/architecture.md.
//
// Bad records: every defect of a conversation is named (each node read on its own), and a
// conversation with any is left out whole, with its memories.

export type ChatGptOptions = { app_id?: string; end_user_id?: string | null };
export type ChatGptRecord = { conversation: ImportConversation | null; memories: ImportMemory[]; unrepresented: Record<string, number> };

/** The owner user.json names (its id), or null when it names none. */
export function chatgptOwner(v: unknown): string | null {
  if (!isObj(v)) return null;
  const id = typeof v.id === "string" && v.id.trim() ? v.id.trim() : null;
  return id;
}

/** The wrapper sentences ChatGPT puts around custom instructions ("... User profile:\n```text```"): the text inside. */
export function unwrapInstructions(text: string): string {
  const t = text.trim();
  if (!/^The user provided (the following information about themselves|the additional info about how they would like you to respond)/.test(t)) return t;
  const fenced = /```([\s\S]*?)```\s*$/.exec(t);
  if (fenced) return fenced[1].trim();
  // Older form: the sentence, a colon, the text.
  return t.replace(/^The user provided (the following information about themselves|the additional info about how they would like you to respond):?\s*/, "").trim();
}

type Node = { id: string; message: Obj | null; parent: string | null; children: string[] };
type Call = { id: string; name: string; arguments: string; result: string | null };

const HIDDEN_TYPES = new Set(["user_editable_context", "model_editable_context", "thoughts", "reasoning_recap", "system_error"]);

export function chatgptConversation(v: unknown, record: string, opts: ChatGptOptions = {}): ChatGptRecord {
  if (!isObj(v)) throw new RecordProblem(undefined, `must be an object (a conversation), got ${typeName(v)}`);
  const d = new Defects(record);
  const convId = d.check(() => optString(v, "conversation_id") ?? optString(v, "id"));
  if (!convId && !d.any) d.add("id", "missing (conversation_id or id)");
  const created = d.check(() => optTime(v, "create_time"));
  const updated = d.check(() => optTime(v, "update_time"));
  const currentNode = d.check(() => optString(v, "current_node"));
  const title = d.check(() => optString(v, "title"));
  if (!isObj(v.mapping)) {
    d.add("mapping", v.mapping === undefined ? "missing (the message tree)" : `must be an object, got ${typeName(v.mapping)}`);
    d.throwAny();
  }
  const mapping = v.mapping as Obj;
  let count = 0;
  for (const _ in mapping) count++;
  if (count > LIMITS.nodes.value) throw new RecordProblem("mapping", `${count} nodes: over the ${LIMITS.nodes.name} limit (${LIMITS.nodes.value}${LIMITS.nodes.env ? `, ${LIMITS.nodes.env}` : ""})`);
  const nodes = new Map<string, Node>();
  for (const [key, raw] of Object.entries(mapping)) {
    const path = `mapping.${key}`;
    if (!isObj(raw)) {
      d.add(path, `must be an object, got ${typeName(raw)}`);
      continue;
    }
    if (raw.id !== undefined && raw.id !== key) d.add(`${path}.id`, `must be the node's key (${key}), got ${JSON.stringify(raw.id)}`);
    const parent = raw.parent === undefined || raw.parent === null ? null : raw.parent;
    if (parent !== null && typeof parent !== "string") d.add(`${path}.parent`, `must be a string or null, got ${typeName(parent)}`);
    const children = raw.children === undefined || raw.children === null ? [] : raw.children;
    if (!Array.isArray(children) || children.some((c) => typeof c !== "string")) d.add(`${path}.children`, "must be an array of node ids");
    const message = raw.message === undefined || raw.message === null ? null : raw.message;
    if (message !== null && !isObj(message)) d.add(`${path}.message`, `must be an object or null, got ${typeName(message)}`);
    nodes.set(key, { id: key, message: isObj(message) ? message : null, parent: typeof parent === "string" ? parent : null, children: Array.isArray(children) ? children.filter((c): c is string => typeof c === "string") : [] });
  }
  // The tree must hold together: a parent or a child that is not in mapping is a node lost.
  for (const n of nodes.values()) {
    if (n.parent !== null && !nodes.has(n.parent)) d.add(`mapping.${n.id}.parent`, `names no node of mapping (${n.parent})`);
    n.children.forEach((c, k) => {
      const child = nodes.get(c);
      if (!child) d.add(`mapping.${n.id}.children[${k}]`, `names no node of mapping (${c})`);
      else if (child.parent !== n.id) d.add(`mapping.${n.id}.children[${k}]`, `names ${c}, whose parent is ${JSON.stringify(child.parent)}`);
    });
  }
  const unrepresented: Record<string, number> = {};
  const memories = memoriesOf(nodes, record, opts, d);

  const roots = [...nodes.values()].filter((n) => n.parent === null || !nodes.has(n.parent));
  if (currentNode !== undefined && !nodes.has(currentNode)) d.add("current_node", `names no node of mapping (${currentNode})`);
  const active = new Set<string>();
  for (let id: string | null | undefined = currentNode; id && nodes.has(id) && !active.has(id); id = nodes.get(id)!.parent) active.add(id);

  const turns: ImportTurn[] = [];
  // Depth first from each root, iteratively (conversations run to thousands of nodes).
  // A stack entry is a node to visit, the turn it belongs to (null before the first
  // question) and the id of the turn above.
  type Open = AnswerParts & { user: Node; query: string; nodeIds: string[] };
  type Frame = { node: Node; open: Open | null; parentTurn: string | null };
  const copyOpen = (o: Open): Open => ({ ...o, texts: [...o.texts], files: [...o.files], calls: o.calls.map((c) => ({ ...c })), nodeIds: [...o.nodeIds], citations: [...o.citations] });
  const stack: Frame[] = roots.reverse().map((node) => ({ node, open: null, parentTurn: null }));
  const seen = new Set<string>();
  while (stack.length) {
    const { node, open: incoming, parentTurn } = stack.pop()!;
    if (seen.has(node.id)) {
      d.add(`mapping.${node.id}.children`, "the tree has a cycle");
      break;
    }
    seen.add(node.id);
    const path = `mapping.${node.id}.message`;
    let open = incoming;
    let above = parentTurn;
    if (node.message && isVisibleUser(node.message)) {
      // A question: the answer before it (if any) closed at the parent node (see below).
      const { text, files } = d.check(() => contentOf(node.message!, path, "user")) ?? { text: "", files: [] };
      open = { user: node, query: text, texts: [], files, calls: [], nodeIds: [node.id], citations: [] };
    } else if (open && node.message) {
      // The open turn is this path's own (copied where the path forks, below): extended in place,
      // so a long run of answer nodes costs linear time, not a copy per node.
      open.nodeIds.push(node.id);
      const o = open;
      d.check(() => addAnswerPart(o, node.message!, path));
    } else if (node.message) {
      d.check(() => {
        if (roleOf(node.message!) === undefined) throw new RecordProblem(`${path}.author.role`, "missing");
      });
    }
    const children = node.children.map((c) => nodes.get(c)).filter((c): c is Node => !!c);
    const userChildren = children.filter((c) => c.message && isVisibleUser(c.message));
    // The turn ends here when a question follows, or when nothing does.
    if (open && (userChildren.length || !children.length)) {
      const id = stableUuid(`chatgpt-turn:${convId}:${node.id}`);
      const user = open.user.message!;
      const metadata: Record<string, unknown> = { source: "chatgpt", node_ids: [...open.nodeIds], active: active.has(node.id) };
      if (open.model) metadata.model = open.model;
      // The turn is made when its answer is (a regenerated answer is a later turn, as in Dify); a question without one: its own time.
      const answered = [...open.nodeIds].reverse().map((n) => nodes.get(n)?.message).find((m) => m && roleOf(m) === "assistant" && m.create_time !== undefined && m.create_time !== null);
      if (open.calls.length) metadata.tool_calls = open.calls.map((c) => ({ ...c }));
      if (open.citations.length) {
        // Memscope has no column for a citation: kept with the turn, and counted.
        metadata.citations = open.citations.map((c) => ({ ...c }));
        unrepresented.chatgpt_citation = (unrepresented.chatgpt_citation ?? 0) + open.citations.reduce((n, c) => n + c.citations.length, 0);
      }
      const turnAt = d.check(() => (answered ? optTime(answered, "create_time", `mapping.${String(answered.id)}.message.create_time`) : undefined) ?? optTime(user, "create_time", `mapping.${open!.user.id}.message.create_time`) ?? created);
      turns.push({
        id,
        path: `mapping.${open.user.id}`,
        parent_message_id: above,
        query: open.query,
        answer: open.texts.join("\n\n"),
        created_at: turnAt,
        files: open.files.slice(0, 20).map((f) => ({ ...f })),
        metadata,
      });
      above = id;
    }
    // Children that go on with this turn: each branch gets its own copy when there are several.
    const continuing = open ? children.filter((c) => !(c.message && isVisibleUser(c.message))).length : 0;
    for (const c of [...children].reverse()) {
      const isQuestion = !!(c.message && isVisibleUser(c.message));
      const mine = isQuestion || !open ? null : continuing > 1 ? copyOpen(open) : open;
      stack.push({ node: c, open: mine, parentTurn: isQuestion || !open ? above : parentTurn });
    }
  }
  d.throwAny();
  if (!turns.length) return { conversation: null, memories, unrepresented };
  const conversationId = stableUuid(`chatgpt-conversation:${convId}`);
  // Several roots (a regenerated first answer, an edited first question): see dify-roots.ts.
  difyRoots(turns, conversationId);
  const activeLeaf = turns.find((t) => (t.metadata as { active: boolean; node_ids: string[] }).active && currentNode && (t.metadata as { node_ids: string[] }).node_ids.includes(currentNode));
  const config: Record<string, unknown> = { source: "chatgpt" };
  if (currentNode) config.current_node = currentNode;
  if (activeLeaf) config.active_leaf_message_id = activeLeaf.id;
  const slug = typeof v.default_model_slug === "string" ? v.default_model_slug : undefined;
  if (slug) config.model = slug;
  if (typeof v.gizmo_id === "string") config.gizmo_id = v.gizmo_id;
  return {
    conversation: {
      externalId: convId!,
      record,
      id: conversationId,
      app_id: opts.app_id ?? "chatgpt",
      end_user_id: opts.end_user_id ?? null,
      name: (title ?? firstLine(turns[0].query)).slice(0, 255),
      mode: "chat",
      model_config: config,
      created_at: created,
      updated_at: updated,
      turns,
      // Only a later root's parent, the conversation (dify-roots.ts), names no turn: every other parent is a node of the mapping.
      allowMissingParents: true,
    },
    memories,
    unrepresented,
  };
}

function roleOf(m: Obj): string | undefined {
  return isObj(m.author) && typeof m.author.role === "string" ? m.author.role : undefined;
}

function contentType(m: Obj): string | undefined {
  return isObj(m.content) && typeof m.content.content_type === "string" ? m.content.content_type : undefined;
}

function isHidden(m: Obj): boolean {
  const md = isObj(m.metadata) ? m.metadata : {};
  return md.is_visually_hidden_from_conversation === true || HIDDEN_TYPES.has(contentType(m) ?? "");
}

/** A question the user asked (not the hidden custom-instructions node, which has the user's role). */
function isVisibleUser(m: Obj): boolean {
  return roleOf(m) === "user" && !isHidden(m);
}

type AnswerParts = { texts: string[]; files: MessageFileInput[]; calls: Call[]; citations: { node_id: string; citations: unknown[] }[]; model?: string };

function addAnswerPart(open: AnswerParts, m: Obj, path: string) {
  const role = roleOf(m);
  if (role === undefined) throw new RecordProblem(`${path}.author.role`, "missing");
  if (isHidden(m) || role === "system" || role === "user") return;
  const recipient = typeof m.recipient === "string" ? m.recipient : "all";
  const { text, files } = contentOf(m, path, "assistant");
  const md = isObj(m.metadata) ? m.metadata : {};
  if (role === "assistant") {
    if (typeof md.model_slug === "string") open.model = md.model_slug;
    if (recipient !== "all") {
      // The assistant addressing a tool (python, browser, dalle.text2im, a GPT action).
      open.calls.push({ id: String(m.id ?? `call-${open.calls.length}`), name: recipient, arguments: text, result: null });
      return;
    }
    if (text) open.texts.push(text);
    open.files.push(...files);
    const cited = [...(Array.isArray(md.citations) ? md.citations : []), ...(Array.isArray(md.content_references) ? md.content_references : [])];
    if (cited.length) open.citations.push({ node_id: String(m.id ?? ""), citations: cited });
    return;
  }
  if (role === "tool") {
    const name = isObj(m.author) && typeof m.author.name === "string" ? m.author.name : "tool";
    let call: Call | undefined;
    for (let k = open.calls.length - 1; k >= 0 && !call; k--) {
      const c = open.calls[k];
      if (c.result === null && (c.name === name || name.startsWith(`${c.name}.`) || c.name.startsWith(name))) call = c;
    }
    if (call) call.result = text;
    else open.calls.push({ id: String(m.id ?? `tool-${open.calls.length}`), name, arguments: "", result: text });
    // Images a tool made (DALL·E) belong to the answer.
    open.files.push(...files.map((f) => ({ ...f, belongs_to: "assistant" as const })));
    return;
  }
  throw new RecordProblem(`${path}.author.role`, `must be user, assistant, system or tool, got ${JSON.stringify(role)}`);
}

/** Text of a message: parts joined (text, code, multimodal_text's strings); image pointers become files. */
function contentOf(m: Obj, path: string, side: "user" | "assistant"): { text: string; files: MessageFileInput[] } {
  const c = m.content;
  if (c === undefined || c === null) return { text: "", files: [] };
  if (!isObj(c)) throw new RecordProblem(`${path}.content`, `must be an object, got ${typeName(c)}`);
  const texts: string[] = [];
  const files: MessageFileInput[] = [];
  if (typeof c.text === "string") texts.push(c.text); // code, execution_output, tether_quote, sonic_webpage
  // A browsing tool's result (tether_browsing_display): its result text, else its summary.
  if (typeof c.result === "string" && c.result) texts.push(c.result);
  else if (c.content_type === "tether_browsing_display" && typeof c.summary === "string" && c.summary) texts.push(c.summary);
  if (c.parts !== undefined && c.parts !== null) {
    if (!Array.isArray(c.parts)) throw new RecordProblem(`${path}.content.parts`, `must be an array, got ${typeName(c.parts)}`);
    c.parts.forEach((p, k) => {
      if (typeof p === "string") {
        if (p) texts.push(p);
      } else if (isObj(p) && typeof p.asset_pointer === "string") {
        if (p.asset_pointer.length > 200) throw new RecordProblem(`${path}.content.parts[${k}].asset_pointer`, "longer than 200 characters");
        const kind = typeof p.content_type === "string" && p.content_type.includes("audio") ? "audio" : "image";
        files.push({ type: kind, transfer_method: "local_file", upload_file_id: p.asset_pointer, url: null, belongs_to: side });
      } else if (isObj(p) && typeof p.text === "string") {
        texts.push(p.text);
      } else if (p !== null && !isObj(p)) {
        throw new RecordProblem(`${path}.content.parts[${k}]`, `must be a string or an object, got ${typeName(p)}`);
      }
    });
  }
  return { text: texts.join("\n"), files };
}

function memoriesOf(nodes: Map<string, Node>, record: string, opts: ChatGptOptions, d: Defects): ImportMemory[] {
  const out: ImportMemory[] = [];
  const user = opts.end_user_id ?? "chatgpt";
  const add = (kind: string, field: string, text: string, node: Node) => {
    const content = text.trim();
    if (!content) return;
    const md = node.message!;
    const at = d.check(() => optTime(md, "create_time", `mapping.${node.id}.message.create_time`));
    out.push({
      // Every conversation carries the instructions again: one memory per distinct text.
      externalId: `chatgpt:${kind}:${sha256Hex(`${field}\n${content}`)}`,
      record: `${record} mapping.${node.id}`,
      user_id: user,
      app_id: opts.app_id ?? "chatgpt",
      memory_type: kind === "custom_instructions" ? "preference" : "fact",
      content: content.slice(0, 10_000),
      structured_data: { source: "chatgpt", kind, field },
      status: "active",
      created_at: at,
      history: [],
    });
  };
  for (const node of nodes.values()) {
    const m = node.message;
    if (!m || !isObj(m.content)) continue;
    const c = m.content;
    if (c.content_type === "user_editable_context") {
      if (typeof c.user_profile === "string") add("custom_instructions", "user_profile", unwrapInstructions(c.user_profile), node);
      if (typeof c.user_instructions === "string") add("custom_instructions", "user_instructions", unwrapInstructions(c.user_instructions), node);
    } else if (c.content_type === "model_editable_context" && typeof c.model_set_context === "string") {
      // Saved memories as ChatGPT showed them to the model: numbered lines, "1. [2024-05-01]. text".
      for (const line of c.model_set_context.split(/\r?\n/)) {
        const item = line.replace(/^\s*\d+\.\s*(\[[^\]]*\]\.?\s*)?/, "").trim();
        if (item) add("saved_memory", "model_set_context", item, node);
      }
    } else if (roleOf(m) === "assistant" && m.recipient === "bio") {
      // The assistant saving a memory through the bio tool: the message is the memory as written.
      const text = d.check(() => contentOf(m, `mapping.${node.id}.message`, "assistant").text);
      if (text) add("bio", "bio", text, node);
    }
  }
  return out;
}

function firstLine(text: string): string {
  const line = text.split("\n").find((l) => l.trim()) ?? "";
  return line.length > 80 ? `${line.slice(0, 79)}…` : line || "(untitled)";
}
