import type { EncodingName } from "../tokens/registry";
import type { RoleMessage } from "./schemas";

export type Dropped = { index: number; reason: string };
export type Transformed = {
  index: number;
  action:
    | "truncated"
    | "system_inserted"
    | "merged"
    | "summarized"
    | "offloaded"
    | "temporary_appended"
    | "tool_calls_removed"
    /** A framework kept part of a message as one or more messages (LangChain allow_partial). */
    | "split"
    /** A framework added a message of its own (Mastra's "." user message). */
    | "message_inserted"
    /** Kept although its tool call or result was cut: a framework's rule, explained in the reason. */
    | "kept_unpaired";
  reason: string;
  ref?: string;
};

/** What a strategy kept, cut or changed, and why. Indices point into the input list. */
export type StrategyOutput = {
  messages: RoleMessage[];
  /** For each output message, its index in the input (-1 for one the strategy added). */
  sourceIndex: number[];
  dropped: Dropped[];
  transformed: Transformed[];
  triggered?: boolean;
  /** Contents moved out of the prompt (auto_context); the caller stores them under ref. */
  offloads?: { ref: string; content: string; tokens: number }[];
};

export type StrategyContext = { encoding: EncodingName; contextWindow: number };
