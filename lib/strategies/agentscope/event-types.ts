// A file of its own: lib/strategies/schemas.ts reads it, and state.ts reads the schemas' types.

/** CompressionEvent's types, one per strategy (2 and 3 differ by the last_keep protection). */
export const EVENT_TYPES = [
  "TOOL_INVOCATION_COMPRESS",
  "LARGE_MESSAGE_OFFLOAD_WITH_PROTECTION",
  "LARGE_MESSAGE_OFFLOAD",
  "PREVIOUS_ROUND_CONVERSATION_SUMMARY",
  "CURRENT_ROUND_LARGE_MESSAGE_SUMMARY",
  "CURRENT_ROUND_MESSAGE_COMPRESS",
] as const;
export type EventType = (typeof EVENT_TYPES)[number];
