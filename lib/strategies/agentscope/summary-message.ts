import type { RoleMessage } from "../schemas";
import { charCountOf, toRoleMessage, type AsMsg } from "./msg";
import { LIST_END } from "./prompts";
import type { EventType, MemoryState } from "./state";

const user = (content: string): RoleMessage => ({ role: "user", content });

/**
 * Calls the summarizer the way AutoContextMemory calls its model: the instruction as a
 * user message, the messages themselves as chat messages, the end marker, then any
 * extra user messages (the current round's character budget).
 */
export async function summarizeMessages(
  state: MemoryState,
  event: EventType,
  instruction: string,
  msgs: AsMsg[],
  opts: { after?: string[]; chat?: RoleMessage[] } = {},
): Promise<{ text: string; prompt: RoleMessage[] }> {
  const prompt = [user(instruction), ...(opts.chat ?? msgs.map(toRoleMessage)), user(LIST_END), ...(opts.after ?? []).map(user)];
  const text = await state.summarize({ event, prompt, covered: { messages: msgs.length, chars: charCountOf(msgs) } });
  return { text, prompt };
}

/** An assistant message a strategy wrote in place of others. */
export function writtenAssistant(text: string, compress: AsMsg["compress"]): AsMsg {
  return { role: "ASSISTANT", name: "assistant", content: [{ type: "text", text }], compress, source: null, index: -1 };
}

/** The newest final assistant answer, or -1. */
export function latestFinalAnswer(list: AsMsg[], isFinal: (m: AsMsg) => boolean): number {
  for (let i = list.length - 1; i >= 0; i--) if (isFinal(list[i])) return i;
  return -1;
}

export function latestUser(list: AsMsg[]): number {
  for (let i = list.length - 1; i >= 0; i--) if (list[i].role === "USER") return i;
  return -1;
}
