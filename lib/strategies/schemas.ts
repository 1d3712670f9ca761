import { z } from "zod";
import { EVENT_TYPES } from "./agentscope/event-types";

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
    history_message_truncate_length: z.number().int().min(0).max(1_000_000).default(1000),
    system_message: z.string().max(200_000).optional(),
    include_tools: z.boolean().default(true),
  })
  .strict();

export const ZSummaryBufferStrategy = z
  .object({
    type: z.literal("summary_buffer"),
    msg_threshold: z.number().int().min(1).max(100_000).default(30),
    token_ratio: z.number().gt(0).max(1).default(0.3),
    last_keep: z.number().int().min(0).max(100_000).default(10),
    offload_tokens: z.number().int().min(50).max(1_000_000).default(2000).describe("Contents larger than this are offloaded to a stored reference."),
    include_tools: z.boolean().default(true),
  })
  .strict()
  .describe("Memscope's own strategy: merge, one summary of the older history, offload. Not a peer's.");

/** AgentScope v1.0.12 AutoContextMemory: AutoContextConfig's fields in snake_case, with its defaults. */
export const ZAutoContextStrategy = z
  .object({
    type: z.literal("auto_context"),
    msg_threshold: z.number().int().min(1).max(1_000_000).default(100),
    token_ratio: z.number().gt(0).max(1).default(0.75),
    max_token: z.number().int().min(1).max(100_000_000).default(131_072).describe("A setting of AutoContextConfig, not the model's context window."),
    last_keep: z.number().int().min(0).max(1_000_000).default(50),
    large_payload_threshold: z.number().int().min(0).max(100_000_000).default(5120).describe("Characters."),
    offload_single_preview: z.number().int().min(0).max(1_000_000).default(200).describe("Characters kept before the offload tag."),
    min_consecutive_tool_messages: z.number().int().min(0).max(1_000_000).default(6),
    min_compression_token_threshold: z.number().int().min(0).max(100_000_000).default(5000),
    current_round_compression_ratio: z.number().gt(0).max(1).default(0.3),
    system_prompt: z.string().max(200_000).default("").describe("The agent's own system prompt (outside the memory). /context uses its own system_prompt."),
    steps: z.number().int().min(1).max(50).default(1).describe("Consecutive model calls simulated on the given memory."),
    hook_wiring: z.enum(["1.0", "1.1"]).default("1.0").describe("1.0: the hook's instruction appended to the system prompt; 1.1: a second system message."),
    summarizer: z
      .enum(["auto", "placeholder"])
      .default("auto")
      .describe("auto: the configured chat model (MEMSCOPE_CHAT_*) writes summaries, else placeholders; placeholder: never call the model (free; the report says how many calls a model run would make)."),
  })
  .strict();
export type AutoContextStrategy = z.infer<typeof ZAutoContextStrategy>;

const ZLangChainType = z.enum(["human", "ai", "system", "tool"]);
const ZLangChainTypes = z.union([ZLangChainType, z.array(ZLangChainType).min(1).max(4)]);

/** LangChain JS trimMessages (@langchain/core 1.4): its options in snake_case, with its defaults. */
export const ZLangChainTrimStrategy = z
  .object({
    type: z.literal("langchain_trim"),
    max_tokens: z.number().int().min(0).max(100_000_000),
    strategy: z.enum(["first", "last"]).default("last"),
    include_system: z.boolean().default(false).describe("Keep a leading system message (strategy last only: LangChain throws otherwise)."),
    start_on: ZLangChainTypes.optional().describe("strategy last only: LangChain throws with first."),
    end_on: ZLangChainTypes.optional(),
    allow_partial: z.boolean().default(false),
    token_counter: z
      .enum(["messages", "chars", "words", "model"])
      .default("model")
      .describe(
        "messages: 1 per message; chars: characters (UTF-16 units) of text content; words: whitespace-separated words of text content; model: a ChatOpenAI as tokenCounter (tiktoken of each message's text content, the request's model's encoding).",
      ),
  })
  .strict();
export type LangChainTrimStrategy = z.infer<typeof ZLangChainTrimStrategy>;

/** LlamaIndex TS ChatMemoryBuffer (llamaindex 0.12, @llamaindex/core 0.6.22). */
export const ZLlamaIndexBufferStrategy = z
  .object({
    type: z.literal("llamaindex_buffer"),
    token_limit: z.number().int().min(0).max(100_000_000).optional().describe("Absent: ceil(0.75 × context_window), as LlamaIndex."),
    initial_token_count: z.number().int().min(0).max(100_000_000).default(0).describe("getMessages' second argument."),
    context_window: z.number().int().min(1).max(100_000_000).optional().describe("The LLM's metadata.contextWindow; absent: the model's."),
  })
  .strict();

/** LlamaIndex TS Memory.getLLM without memory blocks (llamaindex 0.12, @llamaindex/core 0.6.22). */
export const ZLlamaIndexMemoryStrategy = z
  .object({
    type: z.literal("llamaindex_memory"),
    token_limit: z.number().int().min(0).max(100_000_000).default(30_000),
    short_term_token_limit_ratio: z.number().min(0).max(1).default(0.7),
    context_window: z
      .number()
      .int()
      .min(1)
      .max(100_000_000)
      .nullable()
      .default(null)
      .describe("The metadata.contextWindow of the LLM given to getLLM (or Memory's llm); when set, 0.75 of it replaces token_limit. null: no LLM."),
  })
  .strict();

/** Mastra Memory's lastMessages (@mastra/core 1.71, @mastra/memory 1.31). */
export const ZMastraLastMessagesStrategy = z
  .object({
    type: z.literal("mastra_last_messages"),
    last_messages: z
      .union([z.number().int().min(0).max(1_000_000), z.literal(false)])
      .default(10)
      .describe("Stored messages (a whole agent reply is one); 0 or false: no history."),
  })
  .strict();

export const ZStrategy = z.discriminatedUnion("type", [
  ZTokenBufferStrategy,
  ZMessageWindowStrategy,
  ZAutoContextStrategy,
  ZSummaryBufferStrategy,
  ZLangChainTrimStrategy,
  ZLlamaIndexBufferStrategy,
  ZLlamaIndexMemoryStrategy,
  ZMastraLastMessagesStrategy,
]);
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
  action: z.enum(["truncated", "system_inserted", "merged", "summarized", "offloaded", "temporary_appended", "tool_calls_removed", "split", "message_inserted", "kept_unpaired"]),
  reason: z.string(),
  ref: z.string().optional().describe("Offloaded content: GET /api/v1/offloaded/{ref}"),
});

export const ZAutoContextEvent = z.object({
  type: z.enum(EVENT_TYPES).describe("AgentScope's CompressionEvent type"),
  compressed_message_count: z.number().int(),
  start: z.number().int().describe("Position in the memory the step saw."),
  offload_ref: z.string().nullable().describe("The original: GET /api/v1/offloaded/{ref}"),
  summarizer_messages: z.array(ZRoleMessage).nullable().describe("What was sent to the summarizer; null for a plain offload."),
});

export const ZAutoContextStep = z.object({
  call: z.number().int().describe("1-based model call."),
  turn_index: z.number().int().nullable().describe("Replay: index in the history of the assistant message this call produced; null for the next call."),
  triggered: z.boolean(),
  strategy: z.number().int().min(1).max(6).nullable(),
  events: z.array(ZAutoContextEvent),
  messages_before: z.number().int(),
  tokens_before: z.number().int().describe("AgentScope's own estimate, not tiktoken."),
  messages_after: z.number().int(),
  tokens_after: z.number().int(),
  threshold_tokens: z.number().int(),
});

export const ZAutoContextReport = z.object({
  follows: z.literal("AgentScope v1.0.12 AutoContextMemory"),
  hook_wiring: z.enum(["1.0", "1.1"]),
  summaries: z.enum(["model", "placeholder"]),
  summary_model: z.string().nullable(),
  chat_model: z.string().nullable().describe("The configured chat model, used or not."),
  summaries_written: z.number().int().describe("Summaries this run wrote (model or placeholder): with summarizer auto and a model, the calls it costs before caching."),
  model_calls: z.number().int().describe("Summarizer calls made to the chat model for this answer."),
  cached_summaries: z.number().int(),
  calls: z.number().int().describe("Agent model calls simulated."),
  triggered_calls: z.number().int(),
  steps: z.array(ZAutoContextStep).describe("Window: every simulated call. Replay: the calls where a strategy was applied."),
  tools: z.array(z.object({ name: z.string(), description: z.string(), parameters: z.record(z.string(), z.unknown()) })),
  memory: z.object({ messages: z.number().int(), tokens: z.number().int() }),
});
export type AutoContextReport = z.infer<typeof ZAutoContextReport>;

export const ZWindowResult = z.object({
  messages: z.array(ZRoleMessage),
  total_tokens: z.number().int(),
  dropped: z.array(ZDropped),
  transformed: z.array(ZTransformed),
  triggered: z.boolean().optional().describe("auto_context, summary_buffer: whether compression ran"),
  auto_context: ZAutoContextReport.optional(),
  model: z.string(),
  encoding: z.string(),
  approximate: z
    .boolean()
    .describe("True when a count is approximate: the model's tokenizer is a stand-in, or a text holds a piece over 256 bytes (one word of hundreds of letters)"),
  context_window: z.number().int(),
});
export type WindowResult = z.infer<typeof ZWindowResult>;
