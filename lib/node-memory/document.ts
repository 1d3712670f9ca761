import { extractThread } from "../threads/extract-thread";
import { contentTokens, CHAT_FORMULA, messageOverhead, type ContentPart, type FilePart } from "../tokens/chat-formula";
import { countTextTokens, hasLongPiece } from "../tokens/count-tokens";
import type { EncodingName, ModelTokenizer } from "../tokens/registry";
import { tokenBufferWindow, type WindowTurn } from "../window/token-buffer";
import {
  DOCUMENT_FORMAT_VERSION,
  ZNodeMemoryDocument,
  type AddTurnInput,
  type NodeFileInput,
  type NodeHistoryResponse,
  type NodeMemoryDocument,
  type NodeMemoryFile,
  type NodeMemoryMessage,
} from "./schemas";
import { documentTurns, findTurn, type NodeTurn } from "./turns";

export { documentTurns, findTurn, type NodeTurn };

// Pure functions over the v1 node-memory document: building a turn, appending it,
// grouping messages into turns, the thread walk and the token-buffer window.

export function emptyDocument(): NodeMemoryDocument {
  return { version: DOCUMENT_FORMAT_VERSION, messages: [] };
}

/** A stored document, checked: an unknown format version is an error, never silently rewritten. */
export function parseDocument(raw: unknown): NodeMemoryDocument {
  const value = typeof raw === "string" ? JSON.parse(raw) : raw;
  const r = ZNodeMemoryDocument.safeParse(value);
  if (!r.success) {
    const version = (value as { version?: unknown } | null)?.version;
    throw new Error(`Unsupported node memory document (version ${JSON.stringify(version)}): ${r.error.issues[0]?.message}`);
  }
  return r.data;
}

function toFile(f: NodeFileInput, belongsTo: "user" | "assistant"): NodeMemoryFile {
  return {
    type: f.type,
    transfer_method: f.transfer_method,
    upload_file_id: f.upload_file_id ?? null,
    tool_file_id: f.tool_file_id ?? null,
    url: f.url ?? null,
    belongs_to: belongsTo,
  };
}

/** Content tokens of one message: text in the encoding, plus the chat formula's image price. */
export function messageContentTokens(content: string, files: { type: string }[], encoding: EncodingName): number {
  const parts: ContentPart[] = files.map((f) => ({ type: f.type, transfer_method: "" }) as FilePart);
  return countTextTokens(content, encoding) + contentTokens(parts, encoding);
}

/**
 * The two messages of one turn. `parent` is the user message's parent as it will be
 * stored (already resolved for an omitted parent); the assistant's parent is the user message.
 */
export function buildTurnMessages(
  input: Pick<AddTurnInput, "message_id" | "user_content" | "user_files" | "assistant_content" | "assistant_files">,
  assistantMessageId: string,
  parent: string | null,
  createdAt: string,
): [NodeMemoryMessage, NodeMemoryMessage] {
  const userFiles = input.user_files.map((f) => toFile(f, "user"));
  const assistantFiles = input.assistant_files.map((f) => toFile(f, "assistant"));
  return [
    {
      message_id: input.message_id,
      parent_message_id: parent,
      role: "user",
      content: input.user_content,
      files: userFiles,
      token_count: messageContentTokens(input.user_content, userFiles, "o200k_base"),
      created_at: createdAt,
    },
    {
      message_id: assistantMessageId,
      parent_message_id: input.message_id,
      role: "assistant",
      content: input.assistant_content,
      files: assistantFiles,
      token_count: messageContentTokens(input.assistant_content, assistantFiles, "o200k_base"),
      created_at: createdAt,
    },
  ];
}

/** Ids of the given messages that the document already holds. */
export function duplicateIds(doc: NodeMemoryDocument, ids: string[]): string[] {
  const taken = new Set(doc.messages.map((m) => m.message_id));
  return ids.filter((id) => taken.has(id));
}

export function appendMessages(doc: NodeMemoryDocument, messages: NodeMemoryMessage[]): NodeMemoryDocument {
  return { version: DOCUMENT_FORMAT_VERSION, messages: [...doc.messages, ...messages] };
}

export function documentTokens(doc: NodeMemoryDocument): number {
  let n = 0;
  for (const m of doc.messages) n += m.token_count;
  return n;
}

/**
 * Thread for current_message_id, newest first, by Dify's extract_thread_messages over
 * the node's turns (newest first):
 * - omitted: the walk starts at the newest turn;
 * - a message of the node: the walk starts at that turn (included);
 * - otherwise `external` gives the current message's parent (the in-flight message, read
 *   from the conversation by the caller): the walk starts at a stand-in row for it,
 *   which is left out of the result.
 * Returns null when the current message is neither in the node nor given by `external`.
 */
export function nodeThread(
  turns: NodeTurn[],
  currentMessageId: string | undefined,
  external?: { parentMessageId: string | null } | null,
): NodeTurn[] | null {
  const newestFirst = [...turns].reverse();
  if (!currentMessageId) return extractThread(newestFirst);
  const own = findTurn(turns, currentMessageId);
  if (own) return extractThread(newestFirst.slice(newestFirst.indexOf(own)));
  if (!external) return null;
  const standIn: NodeTurn = { id: `\u0000current:${currentMessageId}`, parentMessageId: external.parentMessageId, user: null, assistant: null };
  return extractThread([standIn, ...newestFirst]).slice(1);
}

function parts(files: NodeMemoryFile[]): ContentPart[] {
  return files.map((f) => {
    const part: FilePart & { tool_file_id?: string | null } = { type: f.type, transfer_method: f.transfer_method, url: f.url, upload_file_id: f.upload_file_id };
    if (f.tool_file_id) part.tool_file_id = f.tool_file_id;
    return part;
  });
}

/** A message's content tokens in the encoding: the stored count for o200k_base, else a count now. */
function tokensIn(m: NodeMemoryMessage | null, encoding: EncodingName): number {
  if (!m) return 0;
  return encoding === "o200k_base" ? m.token_count : messageContentTokens(m.content, m.files, encoding);
}

/**
 * The node's history: the thread, then whole turns dropped oldest first while the
 * chat-formula total exceeds max_token_limit (a total equal to the limit fits).
 */
export function nodeWindow(
  thread: NodeTurn[],
  maxTokenLimit: number,
  tok: ModelTokenizer,
): Pick<NodeHistoryResponse, "messages" | "thread_message_ids" | "dropped_message_ids" | "turn_tokens" | "total_tokens" | "max_token_limit" | "model" | "encoding" | "approximate" | "formula"> {
  const userOverhead = messageOverhead("user", tok.encoding);
  const assistantOverhead = messageOverhead("assistant", tok.encoding);
  const turns: WindowTurn[] = thread.map((t) => ({
    id: t.id,
    query: t.user?.content ?? "",
    answer: t.assistant?.content ?? "",
    // Node memory is written after the node ran: a turn is never an in-flight placeholder.
    answerTokens: -1,
    userTokens: t.user ? userOverhead + tokensIn(t.user, tok.encoding) : 0,
    assistantTokens: t.assistant ? assistantOverhead + tokensIn(t.assistant, tok.encoding) : 0,
    userFiles: t.user ? parts(t.user.files) : [],
    assistantFiles: t.assistant ? parts(t.assistant.files) : [],
  }));
  const window = tokenBufferWindow(turns, maxTokenLimit);
  // A lone message (not written by this API) becomes one chat message, not an empty pair.
  const keptIds = new Set(window.kept.map((t) => t.id));
  const byId = new Map(thread.map((t) => [t.id, t]));
  const messages = window.kept.flatMap((k, i) => {
    const t = byId.get(k.id)!;
    const pair = window.messages.slice(2 * i, 2 * i + 2);
    return [...(t.user ? [pair[0]] : []), ...(t.assistant ? [pair[1]] : [])];
  });
  return {
    messages,
    thread_message_ids: window.threadIds,
    dropped_message_ids: window.droppedIds,
    turn_tokens: turns.map((t) => ({
      message_id: t.id,
      assistant_message_id: byId.get(t.id)!.assistant?.message_id ?? null,
      tokens: t.userTokens + t.assistantTokens,
      kept: keptIds.has(t.id),
    })),
    total_tokens: window.totalTokens,
    max_token_limit: maxTokenLimit,
    model: tok.model,
    encoding: tok.encoding,
    approximate: tok.approximate || window.kept.some((t) => hasLongPiece(t.query, tok.encoding) || hasLongPiece(t.answer, tok.encoding)),
    formula: CHAT_FORMULA,
  };
}
