// Memscope's own wording for what AutoContextMemory sends to its summarizer and adds to
// the system prompt. The structure (an instruction as a user message, the messages
// themselves, an end marker, the character budget last) follows AgentScope; the texts
// are written here. The offload tag is AgentScope's exact marker: agents parse it.

export const offloadTag = (uuid: string) => `<!-- CONTEXT_OFFLOAD: uuid=${uuid} -->`;

export const LIST_END = "End of the messages to compress.";

export const TOOL_RUN_PROMPT =
  "Compress the tool calls below into a short plain-text record an agent can rely on later. " +
  "For each distinct call keep the tool name, the exact arguments and what the result established; " +
  "merge identical repeated calls and note how often they ran. For calls that changed something " +
  "(wrote, created, updated, deleted), keep paths, keys, values and whether it succeeded. " +
  "Write [TRUNCATED] where an output looks cut off. No markdown, lists or JSON.";

export const PREVIOUS_ROUND_PROMPT =
  "Below is one finished round of an agent conversation: the user's question, the tool work, and the " +
  "assistant's answer. Rewrite the answer so it stands on its own and states as plain facts everything " +
  "the tool results established (paths, values, ids, error texts, what changed and where, what failed). " +
  "Do not mention tools or steps taken. It replaces the round in the agent's memory. Plain text only.";

export const CURRENT_ROUND_LARGE_PROMPT =
  "The message below is part of the task the agent is working on right now and is too large to keep. " +
  "Summarize it conservatively: keep every fact, number, identifier, path and instruction the agent may " +
  "still need, drop repetition and boilerplate. Plain text only.";

export const CURRENT_ROUND_PROMPT =
  "The messages below are the agent's work so far on the current request (tool calls and their results). " +
  "Compress them into one plain-text account of what was done and found, keeping exact arguments, values " +
  "and outcomes the agent needs to finish the request.";

export const currentRoundBudget = (originalChars: number, targetChars: number, percent: number) =>
  `Length: the messages above total ${originalChars} characters. Write about ${targetChars} characters ` +
  `(${percent}% of the original), and no more.`;

/** The hook's instruction about offload tags (Memscope's wording of AgentScope's instruction). */
export const HOOK_INSTRUCTION =
  "Some earlier messages were compressed and end with a marker like <!-- CONTEXT_OFFLOAD: uuid=... -->.\n" +
  "- To read the full original, call context_reload with that uuid.\n" +
  "- Never mention uuids, offload markers or other internal metadata in your replies.";

/** The tool the hook registers (ContextOffloadTool), as the model sees it. */
export const CONTEXT_RELOAD_TOOL = {
  name: "context_reload",
  description: "Reload messages that were compressed out of the context, by the uuid in their offload marker.",
  parameters: {
    type: "object",
    properties: { working_context_offload_uuid: { type: "string", description: "The uuid from a CONTEXT_OFFLOAD marker." } },
    required: ["working_context_offload_uuid"],
  },
} as const;
