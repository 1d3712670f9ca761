import { z } from "zod";
import { FILE_TYPES, TRANSFER_METHODS, ZChatMessage, ZTokenizerInfo } from "../messages/schemas";

// Node-level memory (Dify NodeTokenBufferMemory). Client-safe: zod and types only.
//
// One JSON document per (app_id, conversation_id, node_id), in the seed's format:
//   {"version": 1, "messages": [{message_id, parent_message_id, role, content, files, token_count, created_at}, ...]}
// A turn adds two messages, oldest first: the user message carries the turn's
// message_id and the parent_message_id given by the caller (the parent turn's
// message_id, Dify semantics: null = a new root, UUID_NIL = the previous turn); the
// assistant message has its own id and its parent is that user message (msg-001 ->
// msg-002 in the seed).

export const DOCUMENT_FORMAT_VERSION = 1 as const;
export const NODE_ID_PATTERN = /^[A-Za-z0-9_.:-]{1,200}$/;
export const NODE_ID_RULE = "1 to 200 characters of A-Z a-z 0-9 _ . : -";
const MAX_TEXT = 200_000;
const MAX_FILES = 20;

export const ZNodeId = z.string().regex(NODE_ID_PATTERN, NODE_ID_RULE);

/** A message id as the caller knows it (a Dify Message id, or any string up to 200 characters). */
const ZMessageId = z.string().trim().min(1).max(200);

/** A file reference (the seed's NodeMemoryFile); rebuilt by the caller, never fetched here. */
export const ZNodeFileInput = z
  .object({
    type: z.enum(FILE_TYPES).default("image"),
    transfer_method: z.enum(TRANSFER_METHODS),
    upload_file_id: z.string().max(200).nullish(),
    tool_file_id: z.string().max(200).nullish(),
    url: z.string().max(4000).nullish(),
  })
  .strict()
  .refine(
    (f) =>
      f.transfer_method === "remote_url"
        ? !!f.url
        : f.transfer_method === "tool_file"
          ? !!(f.tool_file_id || f.upload_file_id || f.url)
          : !!(f.upload_file_id || f.url),
    { message: "remote_url files need url; local_file needs upload_file_id; tool_file needs tool_file_id" },
  );
export type NodeFileInput = z.infer<typeof ZNodeFileInput>;

export const ZNodeMemoryFile = z.object({
  type: z.enum(FILE_TYPES),
  transfer_method: z.string(),
  upload_file_id: z.string().nullable(),
  tool_file_id: z.string().nullable(),
  url: z.string().nullable(),
  belongs_to: z.enum(["user", "assistant"]),
});
export type NodeMemoryFile = z.infer<typeof ZNodeMemoryFile>;

export const ZNodeMemoryMessage = z.object({
  message_id: z.string(),
  parent_message_id: z.string().nullable(),
  role: z.enum(["user", "assistant"]),
  content: z.string(),
  files: z.array(ZNodeMemoryFile),
  token_count: z.number().int().describe("Content tokens in o200k_base (text; image parts 85 each)."),
  created_at: z.string(),
});
export type NodeMemoryMessage = z.infer<typeof ZNodeMemoryMessage>;

export const ZNodeMemoryDocument = z.object({
  version: z.literal(DOCUMENT_FORMAT_VERSION),
  messages: z.array(ZNodeMemoryMessage),
});
export type NodeMemoryDocument = z.infer<typeof ZNodeMemoryDocument>;

// "" means null, as for conversation turns.
const ZParent = z.preprocess((v) => (v === "" ? null : v), z.union([ZMessageId, z.null()]));

export const ZAddTurnInput = z
  .object({
    message_id: ZMessageId.describe("The turn's id (Dify's Message id); the user message carries it."),
    assistant_message_id: ZMessageId.optional().describe("Id of the assistant message; a fresh UUID when omitted."),
    parent_message_id: ZParent.optional().describe(
      "The parent turn's message_id, kept as given. Omitted: the node's newest turn. null or \"\": a new root. UUID_NIL: Dify's 'previous row'.",
    ),
    user_content: z.string().max(MAX_TEXT),
    user_files: z.array(ZNodeFileInput).max(MAX_FILES).default([]),
    assistant_content: z.string().max(MAX_TEXT),
    assistant_files: z.array(ZNodeFileInput).max(MAX_FILES).default([]),
    app_id: z.string().min(1).max(200).optional().describe("Must be the conversation's app when given."),
  })
  .strict()
  .refine((t) => t.assistant_message_id === undefined || t.assistant_message_id !== t.message_id, {
    message: "must differ from message_id",
    path: ["assistant_message_id"],
  });
export type AddTurnInput = z.infer<typeof ZAddTurnInput>;

const nodeColumns = {
  conversation_id: z.string(),
  node_id: z.string(),
  app_id: z.string(),
  version: z.number().int().describe("Bumped by every write (optimistic concurrency)."),
  message_count: z.number().int(),
  turn_count: z.number().int(),
  token_count: z.number().int().describe("Sum of the messages' token_count (o200k_base content tokens)."),
  created_at: z.string(),
  updated_at: z.string(),
};

export const ZNodeSummary = z.object(nodeColumns);
export type NodeSummary = z.infer<typeof ZNodeSummary>;

export const ZNodeList = z.object({ data: z.array(ZNodeSummary) });
export type NodeList = z.infer<typeof ZNodeList>;

export const ZNodeMemory = z.object({ ...nodeColumns, document: ZNodeMemoryDocument });
export type NodeMemory = z.infer<typeof ZNodeMemory>;

export const ZAddTurnResponse = z.object({
  ...nodeColumns,
  messages: z.array(ZNodeMemoryMessage).describe("The two messages added (user, assistant)."),
  attempts: z.number().int().describe("Optimistic write attempts it took (1 without contention)."),
});
export type AddTurnResponse = z.infer<typeof ZAddTurnResponse>;

export const ZNodeHistoryQuery = z
  .object({
    current_message_id: z
      .preprocess((v) => (v === "" ? undefined : v), ZMessageId.optional())
      .describe(
        "Start of the thread walk. A message of this node: that turn and its ancestors. Otherwise a message of the conversation (the in-flight one): its ancestors. Omitted: the newest turn.",
      ),
    max_token_limit: z.coerce.number().int().min(0).max(10_000_000).default(2000),
    model: z.string().trim().min(1).max(100).default("gpt-4o"),
  })
  .strict();
export type NodeHistoryQuery = z.infer<typeof ZNodeHistoryQuery>;

export const ZNodeHistoryResponse = z.object({
  node_id: z.string(),
  version: z.number().int().describe("The document version the window was computed from (0: no memory yet)."),
  current_message_id: z.string().nullable(),
  messages: z.array(ZChatMessage),
  thread_message_ids: z.array(z.string()).describe("Turn ids (user message ids) of the thread, newest first."),
  dropped_message_ids: z.array(z.string()).describe("Thread turns outside the token budget, newest first."),
  turn_tokens: z
    .array(z.object({ message_id: z.string(), assistant_message_id: z.string().nullable(), tokens: z.number().int(), kept: z.boolean() }))
    .describe("Every thread turn, newest first, with its chat-formula cost."),
  total_tokens: z.number().int(),
  max_token_limit: z.number().int(),
  ...ZTokenizerInfo,
});
export type NodeHistoryResponse = z.infer<typeof ZNodeHistoryResponse>;
