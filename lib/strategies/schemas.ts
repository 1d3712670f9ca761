import { z } from "zod";

// Contracts of the window strategies and of POST /api/v1/window (a fixed shape:
// clients depend on it). Client-safe.

const ZToolCall = z
  .object({
    id: z.string().min(1).max(200),
    name: z.string().min(1).max(200),
    arguments: z.string().max(200_000).default(""),
  })
  .strict();

const ZPart = z.union([
  z.object({ type: z.literal("text"), text: z.string() }).strict(),
  z
    .object({
      type: z.enum(["image", "document", "audio", "video", "custom"]),
      transfer_method: z.string().default("remote_url"),
      url: z.string().nullish(),
      upload_file_id: z.string().nullish(),
    })
    .strict(),
]);

export const ZRoleMessage = z
  .object({
    role: z.enum(["system", "user", "assistant", "tool"]),
    content: z.union([z.string().max(2_000_000), z.array(ZPart).max(100)]),
    tool_call_id: z.string().max(200).optional(),
    tool_calls: z.array(ZToolCall).max(100).optional(),
    name: z.string().max(200).optional(),
  })
  .strict()
  .refine((m) => m.role !== "tool" || !!m.tool_call_id, { message: "tool messages need tool_call_id", path: ["tool_call_id"] });
export type RoleMessage = z.infer<typeof ZRoleMessage>;

export const ZTokenBufferStrategy = z
  .object({
    type: z.literal("token_buffer"),
    max_token_limit: z.number().int().min(0).max(10_000_000),
    include_tools: z.boolean().default(true),
  })
  .strict();

export const ZMessageWindowStrategy = z
  .object({
    type: z.literal("message_window"),
    max_attached_message_count: z.number().int().min(1, "must be > 0").max(100_000).default(10),
    history_message_truncate_enable: z.boolean().default(false),
    history_message_truncate_length: z.number().int().min(1).max(1_000_000).default(1000),
    system_message: z.string().max(200_000).optional(),
    include_tools: z.boolean().default(true),
  })
  .strict();

export const ZAutoContextStrategy = z
  .object({
    type: z.literal("auto_context"),
    msg_threshold: z.number().int().min(1).max(100_000).default(30),
    token_ratio: z.number().gt(0).max(1).default(0.3),
    last_keep: z.number().int().min(0).max(100_000).default(10),
    offload_tokens: z.number().int().min(50).max(1_000_000).default(2000).describe("Contents larger than this are offloaded to a stored reference."),
    include_tools: z.boolean().default(true),
  })
  .strict();

export const ZStrategy = z.discriminatedUnion("type", [ZTokenBufferStrategy, ZMessageWindowStrategy, ZAutoContextStrategy]);
export type Strategy = z.infer<typeof ZStrategy>;

export const ZWindowInput = z
  .object({
    messages: z.array(ZRoleMessage).max(20_000),
    model: z.string().trim().min(1).max(100).optional(),
    strategy: ZStrategy,
    temporary_messages: z.array(ZRoleMessage).max(1000).optional(),
  })
  .strict();
export type WindowInput = z.infer<typeof ZWindowInput>;

export const ZDropped = z.object({ index: z.number().int(), reason: z.string() });
export const ZTransformed = z.object({
  index: z.number().int().describe("Index in the input; -1 for a message the strategy added."),
  action: z.enum(["truncated", "system_inserted", "merged", "summarized", "offloaded", "temporary_appended", "tool_calls_removed"]),
  reason: z.string(),
  ref: z.string().optional().describe("Offloaded content: GET /api/v1/offloaded/{ref}"),
});

export const ZWindowResult = z.object({
  messages: z.array(ZRoleMessage),
  total_tokens: z.number().int(),
  dropped: z.array(ZDropped),
  transformed: z.array(ZTransformed),
  triggered: z.boolean().optional().describe("auto_context: whether compression ran"),
  model: z.string(),
  encoding: z.string(),
  context_window: z.number().int(),
});
export type WindowResult = z.infer<typeof ZWindowResult>;
