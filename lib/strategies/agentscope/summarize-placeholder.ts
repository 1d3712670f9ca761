import type { Summarizer } from "./state";

/**
 * Without a chat model: a deterministic text that says it is a placeholder and what it
 * stands for. Never an extract of the messages: that would pass for AgentScope's output.
 */
export const placeholderSummarizer: Summarizer = async (req) =>
  `[Memscope placeholder, no chat model configured: a ${req.event} summary of ${req.covered.messages} message(s), ${req.covered.chars} characters, would be here]`;
