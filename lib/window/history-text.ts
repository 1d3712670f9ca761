import type { ChatMessage } from "../tokens/chat-formula";

/** Dify's get_history_prompt_text formatting: one line per user/assistant message. */
export function historyText(messages: ChatMessage[], humanPrefix = "Human", aiPrefix = "Assistant"): string {
  const lines: string[] = [];
  for (const m of messages) {
    let prefix: string;
    if (m.role === "user") prefix = humanPrefix;
    else if (m.role === "assistant") prefix = aiPrefix;
    else continue;
    if (typeof m.content === "string") {
      lines.push(`${prefix}: ${m.content}`);
      continue;
    }
    let inner = "";
    for (const part of m.content) {
      if (part.type === "text") inner += `${part.text}\n`;
      else if (part.type === "image") inner += "[image]\n";
    }
    lines.push(`${prefix}: ${inner.trim()}`);
  }
  return lines.join("\n");
}
