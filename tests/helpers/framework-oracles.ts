import { AIMessage, type BaseMessage, HumanMessage, SystemMessage, ToolMessage, trimMessages } from "@langchain/core/messages";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import fc from "fast-check";
import { Tiktoken } from "js-tiktoken/lite";
import cl100k from "js-tiktoken/ranks/cl100k_base";
import o200k from "js-tiktoken/ranks/o200k_base";
import type { LangChainTrimOptions, LangChainType } from "@/lib/strategies/frameworks/langchain-trim";
import type { RoleMessage } from "@/lib/strategies/schemas";
import type { EncodingName } from "@/lib/tokens/registry";

// Generated agent histories and the real npm packages as oracles (LangChain JS trimMessages,
// LlamaIndex TS memory), shared by the unit generator tests and the API test of POST /window.

const WORDS = ["the", "Lisbon", "weather", "42", "1999", "é", "日本", "don't", "I'll", "—", "ok", "{", "}", ":", "\"x\"", "café", "🙂", "a", "b"];
const SEPS = [" ", " ", " ", "\n", "\n\n", "  ", "\t", ", ", ". "];

export const text = fc
  .tuple(fc.array(fc.tuple(fc.constantFrom(...WORDS), fc.constantFrom(...SEPS)), { maxLength: 14 }), fc.constantFrom("", "", "", "\n", " ", "<|endoftext|>"), fc.boolean())
  .map(([parts, tail, lead]) => (lead ? " " : "") + parts.map(([w, s]) => w + s).join("") + tail);

export const content: fc.Arbitrary<RoleMessage["content"]> = fc.oneof(
  { weight: 4, arbitrary: text },
  {
    weight: 1,
    arbitrary: fc
      .array(fc.oneof({ weight: 3, arbitrary: text.map((t) => ({ type: "text" as const, text: t })) }, { weight: 1, arbitrary: fc.constant({ type: "image" as const, transfer_method: "remote_url", url: "https://x/i.png" }) }), {
        minLength: 1,
        maxLength: 4,
      })
      .map((p) => p as RoleMessage["content"]),
  },
);

/** Histories as agents write them: system prompts, user turns, replies with tool calls and their results. */
export const history: fc.Arbitrary<RoleMessage[]> = fc
  .tuple(
    fc.boolean(),
    text,
    fc.array(
      fc.record({
        system: fc.integer({ min: 0, max: 9 }),
        user: content,
        tools: fc.array(fc.tuple(text, text), { maxLength: 2 }),
        answer: content,
        noAnswer: fc.integer({ min: 0, max: 5 }),
      }),
      { maxLength: 7 },
    ),
  )
  .map(([sys, sysText, turns]) => {
    const out: RoleMessage[] = sys ? [{ role: "system", content: sysText }] : [];
    let n = 0;
    for (const t of turns) {
      if (t.system === 0) out.push({ role: "system", content: "mid-thread note" });
      out.push({ role: "user", content: t.user });
      if (t.tools.length) {
        const ids = t.tools.map(() => `call_${++n}`);
        out.push({ role: "assistant", content: "", tool_calls: t.tools.map(([a], i) => ({ id: ids[i], name: "lookup", arguments: JSON.stringify({ q: a }) })) });
        t.tools.forEach(([, r], i) => out.push({ role: "tool", tool_call_id: ids[i], content: r }));
      }
      if (t.noAnswer !== 0) out.push({ role: "assistant", content: t.answer });
    }
    return out;
  });


export const lcContent = (c: RoleMessage["content"]) =>
  typeof c === "string" ? c : c.map((p) => (p.type === "text" ? { type: "text" as const, text: p.text } : { type: "image_url" as const, image_url: { url: p.url ?? "" } }));

export function toLangChain(m: RoleMessage): BaseMessage {
  const c = lcContent(m.content);
  switch (m.role) {
    case "user":
      return new HumanMessage({ content: c });
    case "system":
      return new SystemMessage({ content: c });
    case "tool":
      return new ToolMessage({ content: c as string, tool_call_id: m.tool_call_id! });
    case "assistant":
      return new AIMessage({ content: c, ...(m.tool_calls ? { tool_calls: m.tool_calls.map((t) => ({ id: t.id, name: t.name, args: JSON.parse(t.arguments), type: "tool_call" as const })) } : {}) });
  }
}

export const lcKey = (m: BaseMessage | undefined) =>
  m === undefined ? "undefined" : JSON.stringify([m.getType(), m.content, (m as ToolMessage).tool_call_id ?? null, ((m as AIMessage).tool_calls ?? []).map((t) => t.id)]);

// The counters as a user writes them for trimMessages (the docs' definitions), on LangChain's own messages.
const blocksText = (c: BaseMessage["content"], f: (t: string) => number) =>
  typeof c === "string" ? f(c) : (c as { type: string; text?: string }[]).reduce((n, b) => n + (b.type === "text" ? f(b.text ?? "") : 0), 0);
const wordsOf = (t: string) => t.split(/\s+/).filter(Boolean).length;
export const COUNTERS = {
  messages: (msgs: BaseMessage[]) => msgs.length,
  chars: (msgs: BaseMessage[]) => msgs.reduce((n, m) => n + blocksText(m.content, (t) => t.length), 0),
  words: (msgs: BaseMessage[]) => msgs.reduce((n, m) => n + blocksText(m.content, wordsOf), 0),
};

/** A chat model as tokenCounter: LangChain's own getNumTokens with js-tiktoken (the ranks it would download). */
function modelCounter(encoding: EncodingName) {
  const model = new FakeListChatModel({ responses: [] });
  (model as unknown as { _encoding: Tiktoken })._encoding = new Tiktoken(encoding === "o200k_base" ? o200k : cl100k);
  return model;
}
export const models = { o200k_base: modelCounter("o200k_base"), cl100k_base: modelCounter("cl100k_base") };

const lcType = fc.constantFrom<LangChainType>("human", "ai", "system", "tool");
const lcTypes = fc.option(fc.oneof(lcType, fc.uniqueArray(lcType, { minLength: 1, maxLength: 3 })), { nil: undefined });
export const lcOptions: fc.Arbitrary<LangChainTrimOptions> = fc.record({
  max_tokens: fc.oneof(fc.integer({ min: 0, max: 12 }), fc.integer({ min: 0, max: 400 })),
  strategy: fc.constantFrom("first", "last", "last"),
  include_system: fc.boolean(),
  start_on: lcTypes,
  end_on: lcTypes,
  allow_partial: fc.boolean(),
  token_counter: fc.constantFrom("messages", "chars", "words", "model"),
}) as fc.Arbitrary<LangChainTrimOptions>;

export async function runLangChain(messages: RoleMessage[], o: LangChainTrimOptions, encoding: EncodingName): Promise<string[] | "throws"> {
  // Fresh LangChain messages per run: trimMessages mutates the message it cuts with strategy first.
  // LangChain warns on every text it cannot tokenize (a special token) before its fallback: expected here, not shown.
  const warn = console.warn;
  console.warn = () => {};
  try {
    const out = await trimMessages(messages.map(toLangChain), {
      maxTokens: o.max_tokens,
      strategy: o.strategy,
      // includeSystem as a user sets it: only when true (LangChain throws on a truthy one with "first").
      ...(o.include_system ? { includeSystem: true } : {}),
      ...(o.start_on !== undefined ? { startOn: o.start_on } : {}),
      ...(o.end_on !== undefined ? { endOn: o.end_on } : {}),
      allowPartial: o.allow_partial,
      tokenCounter: o.token_counter === "model" ? models[encoding] : COUNTERS[o.token_counter],
    });
    return out.map(lcKey);
  } catch {
    return "throws";
  } finally {
    console.warn = warn;
  }
}


// LlamaIndex ChatMemoryBuffer and Memory.getLLM

export type LlamaMsg = { role: string; content: unknown; options?: unknown };
export function toLlama(m: RoleMessage): LlamaMsg {
  const c = lcContent(m.content);
  if (m.role === "tool") return { role: "user", content: c, options: { toolResult: { id: m.tool_call_id, result: c, isError: false } } };
  if (m.role === "assistant" && m.tool_calls) {
    return { role: "assistant", content: c, options: { toolCall: m.tool_calls.map((t) => ({ id: t.id, name: t.name, input: JSON.parse(t.arguments) })) } };
  }
  return { role: m.role, content: c };
}
export const llamaKey = (m: LlamaMsg) => JSON.stringify([m.role, m.content]);

