import { contentTokens, messageOverhead, REPLY_PRIMING_TOKENS } from "../tokens/chat-formula";
import { countTextTokens } from "../tokens/count-tokens";
import type { EncodingName } from "../tokens/registry";
import type { RoleMessage } from "./schemas";

/** One message by OpenAI's chat formula; tool calls count their name and arguments. */
export function roleMessageTokens(m: RoleMessage, encoding: EncodingName): number {
  let n = messageOverhead(m.role, encoding, m.name) + contentTokens(m.content, encoding);
  for (const c of m.tool_calls ?? []) n += countTextTokens(c.name, encoding) + countTextTokens(c.arguments, encoding);
  return n;
}

export function listTokens(messages: RoleMessage[], encoding: EncodingName): number {
  if (!messages.length) return 0;
  return messages.reduce((sum, m) => sum + roleMessageTokens(m, encoding), REPLY_PRIMING_TOKENS);
}

export function textOf(m: RoleMessage): string {
  if (typeof m.content === "string") return m.content;
  return m.content.map((p) => (p.type === "text" ? p.text : `[${p.type}]`)).join("\n");
}
