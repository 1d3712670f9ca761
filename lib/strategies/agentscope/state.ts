import type { RoleMessage } from "../schemas";
import type { EventType } from "./event-types";
import type { AsMsg } from "./msg";

/** AutoContextConfig, in AgentScope's snake_case names. */
export type AutoContextConfig = {
  msg_threshold: number;
  token_ratio: number;
  max_token: number;
  last_keep: number;
  large_payload_threshold: number;
  offload_single_preview: number;
  min_consecutive_tool_messages: number;
  min_compression_token_threshold: number;
  current_round_compression_ratio: number;
};

/** AgentScope's defaults (AutoContextConfig in v1.0.12). */
export const AGENTSCOPE_DEFAULTS: AutoContextConfig = {
  msg_threshold: 100,
  token_ratio: 0.75,
  max_token: 128 * 1024,
  last_keep: 50,
  large_payload_threshold: 5 * 1024,
  offload_single_preview: 200,
  min_consecutive_tool_messages: 6,
  min_compression_token_threshold: 5000,
  current_round_compression_ratio: 0.3,
};

export { EVENT_TYPES, type EventType } from "./event-types";

export type SummaryRequest = {
  event: EventType;
  /** What is sent to the summarizer: instruction, the messages, end marker (and budget). */
  prompt: RoleMessage[];
  /** What the summary stands for. */
  covered: { messages: number; chars: number };
};

/** Writes a summary's text. The caller decides: a chat model, or a labelled placeholder. */
export type Summarizer = (req: SummaryRequest) => Promise<string>;

export type CompressionEvent = {
  type: EventType;
  /** endIndex - startIndex + 1, as AgentScope records it. */
  compressed_message_count: number;
  /** Where the compressed span started in the memory the step saw. */
  start: number;
  offload_ref: string | null;
  summarizer_messages: RoleMessage[] | null;
};

/** One AutoContextMemory: the working messages, what was offloaded, and how it writes summaries. */
export type MemoryState = {
  config: AutoContextConfig;
  memory: AsMsg[];
  offloads: Map<string, AsMsg[]>;
  summarize: Summarizer;
  newUuid: () => string;
};

/** One strategy's pass over a copy of the memory: the changed list and what it did, or null. */
export type StrategyPass = (list: AsMsg[], state: MemoryState) => Promise<CompressionEvent[] | null>;
