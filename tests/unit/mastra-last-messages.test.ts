import { MessageList } from "@mastra/core/agent/message-list";
import { MessageHistory } from "@mastra/core/processors";
import { InMemoryStore } from "@mastra/core/storage";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { mastraLastMessagesStrategy } from "@/lib/strategies/frameworks/mastra-last-messages";
import type { RoleMessage } from "@/lib/strategies/schemas";

// Mastra's recall runs against its own in-memory storage: the history is saved as Mastra stores
// it (a user message alone, a whole reply with its tool invocations as one message), recalled by
// the real MessageHistory processor with lastMessages, and turned into the model prompt by the
// real MessageList. Our strategy must send the same messages, "." included.

const word = fc.constantFrom("hello", "Lisbon", "rain", "42", "ok", "done", "café");
const text = fc.array(word, { minLength: 1, maxLength: 5 }).map((w) => w.join(" "));

const history: fc.Arbitrary<RoleMessage[]> = fc
  .tuple(
    fc.boolean(),
    fc.array(
      fc.record({ user: text, userAgain: fc.integer({ min: 0, max: 6 }), tools: fc.array(text, { maxLength: 2 }), answer: text, noAnswer: fc.integer({ min: 0, max: 5 }), lead: fc.integer({ min: 0, max: 8 }) }),
      { maxLength: 8 },
    ),
  )
  .map(([sys, turns]) => {
    const out: RoleMessage[] = sys ? [{ role: "system", content: "be brief" }] : [];
    let n = 0;
    turns.forEach((t, i) => {
      // Now and then a thread that starts with the assistant (a greeting), or two user messages in a row.
      if (!(i === 0 && t.lead === 0)) out.push({ role: "user", content: t.user });
      if (t.userAgain === 0) out.push({ role: "user", content: `${t.user} again` });
      if (t.tools.length) {
        const ids = t.tools.map(() => `call_${++n}`);
        out.push({ role: "assistant", content: "", tool_calls: t.tools.map((a, k) => ({ id: ids[k], name: "lookup", arguments: JSON.stringify({ q: a }) })) });
        t.tools.forEach((r, k) => out.push({ role: "tool", tool_call_id: ids[k], content: r }));
      }
      if (t.lead === 1) out.push({ role: "system", content: "a note the app adds" });
      if (t.noAnswer !== 0 || !t.tools.length) out.push({ role: "assistant", content: t.answer });
    });
    return out;
  });

/** The stored messages Mastra writes for this history (system messages are never stored). */
function toMastraStored(messages: RoleMessage[], t0: number) {
  // As an agent run stores them: each user input alone; the reply to it (every assistant step and tool result) as one.
  const groups: number[][] = [];
  messages.forEach((m, k) => {
    if (m.role === "system") return;
    const last = groups[groups.length - 1];
    if (m.role !== "user" && last && messages[last[0]].role !== "user") last.push(k);
    else groups.push([k]);
  });
  return groups.map((g, i) => {
    const first = messages[g[0]];
    const base = { id: `m${i}`, threadId: "t1", resourceId: "r1", createdAt: new Date(t0 + i * 1000) };
    if (first.role === "user") return { ...base, role: "user" as const, content: { format: 2 as const, parts: [{ type: "text" as const, text: first.content as string }] } };
    const results = new Map(g.map((k) => messages[k]).filter((m) => m.role === "tool").map((m) => [m.tool_call_id!, m.content as string]));
    const parts = g
      .map((k) => messages[k])
      .flatMap((m) =>
        m.role === "tool"
          ? []
          : [
              ...(m.tool_calls ?? []).map((c) => ({
                type: "tool-invocation" as const,
                toolInvocation: { state: "result" as const, toolCallId: c.id, toolName: c.name, args: JSON.parse(c.arguments), result: results.get(c.id) },
              })),
              ...(m.content ? [{ type: "text" as const, text: m.content as string }] : []),
            ],
      );
    return { ...base, role: "assistant" as const, content: { format: 2 as const, parts } };
  });
}

type Sig = [string, string[]];
/** Role and items (texts, tool call and result ids), consecutive messages of one role merged: the two sides split tool messages differently. */
function signature(list: { role: string; items: string[] }[]): Sig[] {
  const out: Sig[] = [];
  for (const m of list) {
    const last = out[out.length - 1];
    if (last && last[0] === m.role) last[1].push(...m.items);
    else out.push([m.role, [...m.items]]);
  }
  return out;
}

function promptItems(m: { role: string; content: unknown }): { role: string; items: string[] } {
  if (typeof m.content === "string") return { role: m.role, items: [m.content] };
  const items = (m.content as { type: string; text?: string; toolCallId?: string }[]).map((p) =>
    p.type === "text" ? p.text! : p.type === "tool-call" ? `call:${p.toolCallId}` : p.type === "tool-result" ? `result:${p.toolCallId}` : p.type,
  );
  return { role: m.role, items };
}

function ourItems(m: RoleMessage): { role: string; items: string[] } {
  if (m.role === "tool") return { role: "tool", items: [`result:${m.tool_call_id}`] };
  const items = [...(m.tool_calls ?? []).map((c) => `call:${c.id}`), ...(m.content ? [m.content as string] : [])];
  return { role: m.role, items };
}

async function mastraPrompt(messages: RoleMessage[], lastMessages: number | false, input: string): Promise<Sig[]> {
  const store = new InMemoryStore();
  const memory = (await store.getStore("memory"))!;
  const t0 = Date.UTC(2026, 0, 1);
  await memory.saveThread({ thread: { id: "t1", resourceId: "r1", title: "", createdAt: new Date(t0), updatedAt: new Date(t0), metadata: {} } });
  const stored = toMastraStored(messages, t0);
  if (stored.length) await memory.saveMessages({ messages: stored as never });
  const list = new MessageList({ threadId: "t1", resourceId: "r1" });
  // Memory adds the MessageHistory processor only when lastMessages is neither 0 nor false.
  if (lastMessages !== false && lastMessages !== 0) {
    await new MessageHistory({ storage: memory as never, lastMessages }).processInput({ messageList: list, requestContext: undefined } as never);
  }
  list.add({ role: "user", content: input }, "input");
  return signature(list.get.all.aiV5.prompt().map((m) => promptItems(m as never)));
}

describe("mastra_last_messages sends what Mastra's MessageHistory + MessageList send", () => {
  it("on generated histories with tool calls, for numbers, 0 and false", async () => {
    let dots = 0;
    await fc.assert(
      fc.asyncProperty(history, fc.oneof(fc.integer({ min: 0, max: 12 }), fc.constant(false as const)), text, async (messages, lastMessages, input) => {
        const theirs = await mastraPrompt(messages, lastMessages, input);
        const ours = mastraLastMessagesStrategy(messages, { last_messages: lastMessages }, [{ role: "user", content: input }]);
        if (ours.messages[0]?.content === ".") dots++;
        expect(signature(ours.messages.map(ourItems))).toEqual(theirs);
      }),
      { numRuns: 300, seed: 3 },
    );
    expect(dots).toBeGreaterThan(10);
  });

  it("explains the grouping and the inserted message", () => {
    const msgs: RoleMessage[] = [
      { role: "user", content: "weather?" },
      { role: "assistant", content: "", tool_calls: [{ id: "c1", name: "forecast", arguments: "{}" }] },
      { role: "tool", tool_call_id: "c1", content: "sunny" },
      { role: "assistant", content: "Sunny." },
    ];
    const r = mastraLastMessagesStrategy(msgs, { last_messages: 1 }, []);
    expect(r.messages.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
    expect(r.messages[0]).toEqual({ role: "user", content: "." });
    expect(r.transformed).toContainEqual(expect.objectContaining({ action: "message_inserted" }));
    expect(r.dropped[0].reason).toMatch(/newest 1 stored messages/);
  });
});
