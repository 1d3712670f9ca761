import { z } from "zod";
import { UUID_NIL } from "../threads/uuid-nil";
import { INT32_MAX, int32, ZDateTime } from "../http/scalars";

export const FILE_TYPES = ["image", "document", "audio", "video", "custom"] as const;
export const TRANSFER_METHODS = ["remote_url", "local_file", "tool_file"] as const;

export const ZMessageFile = z
  .object({
    type: z.enum(FILE_TYPES).default("image"),
    transfer_method: z.enum(TRANSFER_METHODS),
    url: z.string().max(4000).nullish(),
    upload_file_id: z.string().max(200).nullish(),
    belongs_to: z.enum(["user", "assistant"]).default("user"),
  })
  .strict()
  .refine((f) => (f.transfer_method === "remote_url" ? !!f.url : !!(f.upload_file_id || f.url)), {
    message: "remote_url files need url; local_file/tool_file need upload_file_id",
  });
export type MessageFileInput = z.infer<typeof ZMessageFile>;

// "" means null (Dify stores empty strings for legacy heads); UUID_NIL is kept.
const ZParentId = z.preprocess(
  (v) => (v === "" ? null : v),
  z.union([z.literal(UUID_NIL), z.uuid(), z.null()]),
);

const MAX_TEXT = 200_000;

export const ZTurnInput = z
  .object({
    id: z.uuid().optional().describe("Generated when omitted. Unique within the project (409 when this project has it); other projects' ids do not count."),
    parent_message_id: ZParentId.optional().describe(
      "Omitted: under the conversation's active leaf (model_config.active_leaf_message_id, the end of the thread shown) when it names a turn, else under the newest turn. null or \"\": a new root. UUID_NIL: Dify's 'previous row'.",
    ),
    query: z.string().max(MAX_TEXT).default(""),
    answer: z.string().max(MAX_TEXT).default(""),
    answer_tokens: int32(0).optional(),
    created_at: ZDateTime.optional(),
    files: z.array(ZMessageFile).max(20).default([]),
    metadata: z
      .record(z.string(), z.unknown())
      .nullish()
      .describe("Free-form. metadata.tool_calls = [{id?, name, arguments, result}] is read as the turn's tool calls and results (shown in the transcript; expanded into tool messages by /context)."),
  })
  .strict();
export type TurnInput = z.infer<typeof ZTurnInput>;

export const MAX_BATCH = 10_000;

export const ZBatchInput = z
  .object({
    messages: z.array(ZTurnInput).min(1).max(MAX_BATCH),
    allow_missing_parents: z.boolean().default(false),
    return: z
      .enum(["full", "minimal"])
      .default("full")
      .describe("full: every stored turn as a message; minimal: only {id, created_at} per turn (faster for bulk imports)."),
  })
  .strict();

export const ZMessageListQuery = z
  .object({
    cursor: z.string().max(500).optional(),
    limit: z.coerce.number().int().min(1).max(1000).default(200),
  })
  .strict();

export const ZLeafMessageId = z.uuid().optional().describe("The thread's newest turn. Omitted: the active leaf an import recorded (model_config.active_leaf_message_id: ChatGPT's current_node, Claude.ai's newest message), else the newest turn.");

export const ZThreadQuery = z.object({ leaf_message_id: ZLeafMessageId }).strict();

const ZOptionalInt = z.preprocess((v) => (v === "" ? undefined : v), z.coerce.number().int().min(-INT32_MAX - 1).max(INT32_MAX).optional());

export const ZHistoryQuery = z
  .object({
    max_token_limit: z.coerce.number().int().min(0).max(10_000_000).default(2000),
    message_limit: ZOptionalInt.describe("null, 0 or negative mean 500; capped at 500"),
    leaf_message_id: ZLeafMessageId,
    model: z.string().trim().min(1).max(100).default("gpt-4o"),
    format: z.enum(["messages", "text"]).default("messages"),
    human_prefix: z.string().max(100).default("Human"),
    ai_prefix: z.string().max(100).default("Assistant"),
    include_turn_tokens: z.enum(["true", "false"]).default("false").describe("Add turn_tokens: the cost of every thread turn."),
  })
  .strict();
export type HistoryQuery = z.infer<typeof ZHistoryQuery>;

const ZTokenPair = z.object({ query: z.number().int(), answer: z.number().int() });

export const ZMessage = z.object({
  id: z.string(),
  conversation_id: z.string(),
  parent_message_id: z.string().nullable(),
  tree_parent_id: z.string().nullable().describe("The parent drawn in the tree (UUID_NIL resolved to the previous turn)."),
  query: z.string(),
  answer: z.string(),
  answer_tokens: z.number().int(),
  tokens: z.object({ o200k_base: ZTokenPair, cl100k_base: ZTokenPair }),
  files: z.array(
    z.object({
      type: z.string(),
      transfer_method: z.string(),
      url: z.string().nullable(),
      upload_file_id: z.string().nullable(),
      belongs_to: z.string(),
    }),
  ),
  metadata: z.record(z.string(), z.unknown()).nullable(),
  created_at: z.string(),
});
export type Message = z.infer<typeof ZMessage>;

const ZContentPart = z.union([
  z.object({ type: z.literal("text"), text: z.string() }),
  z.object({
    type: z.enum(FILE_TYPES),
    transfer_method: z.string(),
    url: z.string().nullish(),
    upload_file_id: z.string().nullish(),
  }),
]);

export const ZChatMessage = z.object({
  role: z.enum(["system", "user", "assistant", "tool"]),
  content: z.union([z.string(), z.array(ZContentPart)]),
});

export const ZTokenizerInfo = {
  model: z.string(),
  encoding: z.string(),
  approximate: z.boolean().describe("True when a count is approximate: the model is unknown and o200k_base stands in, or a kept text holds a piece over 256 bytes (one word of hundreds of letters)."),
  formula: z.string(),
};

export const ZHistoryResponse = z.object({
  messages: z.array(ZChatMessage).optional().describe("format=messages"),
  text: z.string().optional().describe("format=text"),
  thread_message_ids: z.array(z.string()),
  dropped_message_ids: z.array(z.string()),
  placeholder_message_id: z.string().nullable(),
  total_tokens: z.number().int(),
  max_token_limit: z.number().int(),
  message_limit: z.number().int(),
  turn_tokens: z.array(z.object({ id: z.string(), tokens: z.number().int() })).optional().describe("with include_turn_tokens=true"),
  ...ZTokenizerInfo,
});
export type HistoryResponse = z.infer<typeof ZHistoryResponse>;

export const ZThreadResponse = z.object({
  leaf_message_id: z.string().nullable(),
  message_ids: z.array(z.string()).describe("Newest first."),
});
