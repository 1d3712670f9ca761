// The shapes shared by span reading (genai-span), the span-history cache and the prompt store.
// They live here, in a file that imports nothing, so those three modules do not import each
// other in a circle for their types.

/** A message in the conventions' form: a role and its parts ({type: "text", content}, {type: "tool_call", ...}, ...). */
export type ChatPart = { type: string; [key: string]: unknown };
export type ChatMessage = { role: string; parts: ChatPart[]; [key: string]: unknown };

/** A prompt node. `json`: the exchange's JSON text as sent (what the id digests); `body`: the text stored (compactBody). */
export type PromptNode = { id: string; parent: string | null; position: number; json: string; body: string };
