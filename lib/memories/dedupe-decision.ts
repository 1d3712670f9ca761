import { z } from "zod";
import { chatComplete, parseJsonAnswer, type ChatConfig } from "../chat/chat-provider";
import { ProviderError } from "../embeddings/openai-embedder";

// The design doc's _merge_or_update: a chat model decides what to do with a near
// duplicate. The prompt follows the doc (translated).

const ZDecision = z.object({
  action: z.enum(["replace", "merge", "keep_both"]),
  reason: z.string().default(""),
  merged_content: z.string().optional(),
});
export type DedupeDecision = z.infer<typeof ZDecision>;

export function dedupePrompt(existing: string, incoming: string): string {
  return `An existing memory:
${existing}

A new memory:
${incoming}

Decide how to handle them:
1. replace: the new memory is more accurate; it replaces the old one
2. merge: combine both into one comprehensive memory
3. keep_both: both are valuable; keep two memories

Answer JSON:
{
  "action": "replace|merge|keep_both",
  "reason": "why",
  "merged_content": "the merged content, if action = merge"
}`;
}

export async function decideDuplicate(chat: ChatConfig, existing: string, incoming: string): Promise<DedupeDecision> {
  const parsed = ZDecision.safeParse(parseJsonAnswer(await chatComplete(chat, dedupePrompt(existing, incoming), { json: true })));
  if (!parsed.success) throw new ProviderError(`Chat model's dedupe answer is malformed: ${parsed.error.issues[0]?.message}`);
  if (parsed.data.action === "merge" && !parsed.data.merged_content?.trim()) {
    throw new ProviderError("Chat model chose merge without merged_content");
  }
  return parsed.data;
}
