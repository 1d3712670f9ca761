import { randomUUID } from "node:crypto";
import { chatComplete, type ChatConfig } from "../chat/chat-provider";
import { excludeTools } from "./exclude-tools";
import { extractiveSummary } from "./extractive-summary";
import { listTokens, roleMessageTokens, textOf } from "./message-tokens";
import type { RoleMessage } from "./schemas";
import type { StrategyContext, StrategyOutput, Transformed } from "./strategy-types";

type Item = { m: RoleMessage; index: number; indices: number[] };

export type SummaryBufferOptions = {
  msg_threshold: number;
  token_ratio: number;
  last_keep: number;
  offload_tokens: number;
  include_tools: boolean;
};

const SUMMARY_SENTENCES = 8;

/** Moves a cut that would land on a tool result back to the assistant message that called it. */
export function cutBeforeCall(body: { m: RoleMessage }[], cut: number): number {
  let at = cut;
  while (at > 0 && at < body.length && body[at].m.role === "tool") at--;
  return at;
}

function mergeable(m: RoleMessage): boolean {
  return (m.role === "user" || m.role === "assistant") && typeof m.content === "string" && !m.tool_calls?.length && !m.name;
}

/**
 * Memscope's own summary buffer (not a peer's strategy; AgentScope's AutoContextMemory
 * is auto_context). Triggers when the message count exceeds msg_threshold or the
 * tokens exceed token_ratio of the context window; keeps the last `last_keep` messages
 * as they are (moving the cut back so a tool result never loses its call) and
 * compresses the older ones progressively:
 * 1. merge adjacent messages of the same role; 2. if still over, summarize them into
 * one message (the chat model when configured, else an extractive summary, labelled);
 * 3. offload contents larger than offload_tokens to stored references.
 */
export async function summaryBufferStrategy(
  messages: RoleMessage[],
  opts: SummaryBufferOptions,
  ctx: StrategyContext,
  chat: ChatConfig | null,
): Promise<StrategyOutput> {
  const base = opts.include_tools
    ? { kept: messages.map((m, index) => ({ m, index })), dropped: [], transformed: [] as Transformed[] }
    : excludeTools(messages);
  const items: Item[] = base.kept.map((it) => ({ ...it, indices: [it.index] }));
  const tokenBudget = Math.floor(opts.token_ratio * ctx.contextWindow);
  const over = (list: Item[]) =>
    list.length > opts.msg_threshold || listTokens(list.map((i) => i.m), ctx.encoding) > tokenBudget;

  if (!over(items)) {
    return { messages: items.map((i) => i.m), sourceIndex: items.map((i) => i.index), dropped: base.dropped, transformed: base.transformed, triggered: false };
  }
  const transformed: Transformed[] = [...base.transformed];

  let lead = 0;
  while (lead < items.length && items[lead].m.role === "system") lead++;
  const body = items.slice(lead);
  const keepFrom = cutBeforeCall(body, Math.max(0, body.length - opts.last_keep));
  const tail = body.slice(keepFrom);
  let older = body.slice(0, keepFrom);

  // 1. Merge adjacent messages of the same role.
  const merged: Item[] = [];
  for (const it of older) {
    const prev = merged[merged.length - 1];
    if (prev && mergeable(prev.m) && mergeable(it.m) && prev.m.role === it.m.role) {
      prev.m = { ...prev.m, content: `${prev.m.content as string}\n\n${it.m.content as string}` };
      prev.indices.push(it.index);
    } else merged.push({ ...it, indices: [...it.indices] });
  }
  for (const g of merged) {
    if (g.indices.length > 1) {
      transformed.push({ index: g.indices[0], action: "merged", reason: `${g.indices.length} adjacent ${g.m.role} messages merged (indices ${g.indices.join(", ")})` });
    }
  }
  older = merged;
  let result: Item[] = [...items.slice(0, lead), ...older, ...tail];

  // 2. Still over: summarize the older history into one message.
  if (over(result) && older.length) {
    let summary: string;
    let how: string;
    if (chat) {
      const texts = older.map((o) => `${o.m.role}: ${textOf(o.m)}`);
      summary = await chatComplete(
        chat,
        `Summarize this earlier part of a conversation for the assistant's memory. Keep facts, decisions, preferences, open questions and tool results that matter later. Be concise.\n\n${texts.join("\n")}`,
      );
      how = `summary by ${chat.model}`;
    } else {
      summary = extractiveSummary(older.map((o) => textOf(o.m)), SUMMARY_SENTENCES).map((s) => `- ${s}`).join("\n");
      how = "extractive summary (highest-scoring sentences; no model configured)";
    }
    const label = chat ? "Summary of the earlier conversation" : "Extractive summary of the earlier conversation (selected sentences, not rewritten)";
    const summaryMessage: Item = {
      m: { role: "system", content: `${label}, ${older.reduce((n, o) => n + o.indices.length, 0)} messages:\n${summary}` },
      index: -1,
      indices: [],
    };
    for (const o of older) for (const index of o.indices) transformed.push({ index, action: "summarized", reason: how });
    result = [...items.slice(0, lead), summaryMessage, ...tail];
  }

  // 3. Offload large contents to references the API can return on demand.
  const offloads: NonNullable<StrategyOutput["offloads"]> = [];
  result = result.map((it) => {
    if (it.index < 0 || it.m.role === "system") return it;
    const tokens = roleMessageTokens(it.m, ctx.encoding);
    if (tokens <= opts.offload_tokens) return it;
    const ref = randomUUID();
    const content = textOf(it.m);
    offloads.push({ ref, content, tokens });
    transformed.push({ index: it.index, action: "offloaded", reason: `${tokens} tokens over offload_tokens ${opts.offload_tokens}`, ref });
    const preview = Array.from(content).slice(0, 200).join("");
    return { ...it, m: { ...it.m, content: `[Offloaded ${tokens} tokens; ref ${ref}] ${preview}…` } };
  });

  return {
    messages: result.map((i) => i.m),
    sourceIndex: result.map((i) => i.index),
    dropped: base.dropped,
    transformed: transformed.sort((a, b) => a.index - b.index),
    triggered: true,
    offloads,
  };
}
