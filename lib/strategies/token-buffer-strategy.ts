import { excludeTools } from "./exclude-tools";
import { roleMessageTokens } from "./message-tokens";
import { REPLY_PRIMING_TOKENS } from "../tokens/chat-formula";
import type { RoleMessage } from "./schemas";
import type { StrategyContext, StrategyOutput } from "./strategy-types";

/**
 * Dify's token-buffer rule over role messages: leading system messages stay; the rest
 * is grouped into turns (a turn starts at each user message); while the total exceeds
 * max_token_limit, the oldest whole turn goes. A total equal to the limit fits.
 */
export function tokenBufferStrategy(
  messages: RoleMessage[],
  opts: { max_token_limit: number; include_tools: boolean },
  ctx: StrategyContext,
): StrategyOutput {
  const base = opts.include_tools
    ? { kept: messages.map((m, index) => ({ m, index })), dropped: [], transformed: [] }
    : excludeTools(messages);
  const items = base.kept;
  let lead = 0;
  while (lead < items.length && items[lead].m.role === "system") lead++;

  const turns: (typeof items)[] = [];
  for (const it of items.slice(lead)) {
    if (it.m.role === "user" || turns.length === 0) turns.push([it]);
    else turns[turns.length - 1].push(it);
  }
  const cost = (group: typeof items) => group.reduce((s, it) => s + roleMessageTokens(it.m, ctx.encoding), 0);
  const leadCost = cost(items.slice(0, lead));
  const turnCost = turns.map(cost);
  let total = items.length ? REPLY_PRIMING_TOKENS + leadCost + turnCost.reduce((a, b) => a + b, 0) : 0;
  let start = 0;
  while (start < turns.length && total > opts.max_token_limit) {
    total -= turnCost[start];
    start++;
  }
  const dropped = [...base.dropped];
  for (const group of turns.slice(0, start)) {
    for (const it of group) dropped.push({ index: it.index, reason: `oldest turn dropped: history over max_token_limit ${opts.max_token_limit}` });
  }
  const kept = [...items.slice(0, lead), ...turns.slice(start).flat()];
  return {
    messages: kept.map((it) => it.m),
    sourceIndex: kept.map((it) => it.index),
    dropped: dropped.sort((a, b) => a.index - b.index),
    transformed: base.transformed,
  };
}
