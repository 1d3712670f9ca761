import { z } from "zod";
import { ZMemoryType, ZWeights } from "../memories/schemas";
import { ZLeafMessageId } from "../messages/schemas";
import { ZAutoContextReport, ZDropped, ZRoleMessage, ZStrategy, ZTransformed } from "../strategies/schemas";
import { ZUserIdInput } from "../http/user-id";

export const MEMORY_FORMATS = ["user_memory", "xml_block"] as const;

/** How memories are retrieved and formatted into a prompt (also an agent profile's memory options). */
export const ZContextMemory = z
  .object({
    enabled: z.boolean().default(true),
    k: z.number().int().min(1).max(100).default(5),
    memory_types: z.array(ZMemoryType).min(1).optional(),
    min_score: z.number().min(-10).max(10).optional(),
    weights: ZWeights.partial().optional(),
    format: z.enum(MEMORY_FORMATS).default("user_memory").describe("user_memory: the design doc's '# USER MEMORY' sections; xml_block: a <long_term_memory> block"),
  })
  .strict();

export const ZContextInput = z
  .object({
    user_id: ZUserIdInput,
    conversation_id: z.uuid().optional(),
    leaf_message_id: ZLeafMessageId,
    messages: z.array(ZRoleMessage).max(20_000).optional().describe("Inline history instead of a stored conversation."),
    query: z.string().min(1).max(200_000),
    system_prompt: z.string().max(200_000).default(""),
    model: z.string().trim().min(1).max(100).default("gpt-4o"),
    reserved_output_tokens: z.number().int().min(0).max(10_000_000).default(1024),
    strategy: ZStrategy,
    temporary_messages: z.array(ZRoleMessage).max(1000).optional(),
    memory: ZContextMemory.extend({ dry_run: z.boolean().default(false) })
      .strict()
      .default({ enabled: true, k: 5, format: "user_memory", dry_run: false }),
  })
  .strict()
  .refine((v) => !(v.conversation_id && v.messages), { message: "give conversation_id or messages, not both", path: ["messages"] })
  .refine((v) => !v.leaf_message_id || v.conversation_id, { message: "leaf_message_id needs conversation_id", path: ["leaf_message_id"] });
export type ContextInput = z.infer<typeof ZContextInput>;

export const SECTION_NAMES = ["system", "memories", "history", "query", "temporary"] as const;

export const ZContextResult = z.object({
  messages: z.array(ZRoleMessage),
  fits: z.boolean().describe("false when even system, memories and query exceed the context window minus reserved output"),
  sections: z.object({
    system: z.number().int(),
    memories: z.number().int(),
    history: z.number().int(),
    query: z.number().int(),
    temporary: z.number().int(),
    reserved_output: z.number().int(),
    free: z.number().int(),
    context_window: z.number().int(),
    total: z.number().int().describe("tokens of the final messages"),
  }),
  message_sections: z.array(z.enum(SECTION_NAMES)).describe("The section of each final message, for colouring."),
  memories: z.array(z.object({ id: z.string(), memory_type: ZMemoryType, content: z.string(), score: z.number(), included: z.boolean() })),
  retrieval_id: z.string().nullable(),
  memory_access_recorded: z
    .boolean()
    .describe("True when the retrieved memories were marked accessed: the caller holds write and memory.dry_run was false. A read-only caller's retrieval is logged but changes no ranking."),
  history_source: z.enum(["conversation", "inline", "none"]),
  strategy: z.object({ type: z.string(), triggered: z.boolean().optional() }),
  dropped: z.array(ZDropped.extend({ section: z.enum(["history", "memories"]) })),
  transformed: z.array(ZTransformed),
  auto_context: ZAutoContextReport.optional().describe("auto_context: the replay of the stored conversation (or inline history) with the query appended"),
  model: z.string(),
  encoding: z.string(),
  exact: z.boolean(),
  approximate: z.boolean().describe("True when a count is approximate: the tokenizer is a stand-in (not exact), or a text holds a piece over 256 bytes"),
});
export type ContextResult = z.infer<typeof ZContextResult>;
