import { AIMessage, type BaseMessage, HumanMessage, SystemMessage, ToolMessage, trimMessages } from "@langchain/core/messages";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import { ChatMemoryBuffer, Memory } from "@llamaindex/core/memory";
import fc from "fast-check";
import { Tiktoken } from "js-tiktoken/lite";
import cl100k from "js-tiktoken/ranks/cl100k_base";
import o200k from "js-tiktoken/ranks/o200k_base";
import { describe, expect, it } from "vitest";
import { ValidationError } from "@/lib/errors/domain-errors";
import { langchainTrimStrategy, type LangChainTrimOptions, type LangChainType } from "@/lib/strategies/frameworks/langchain-trim";
import { llamaindexBufferStrategy, llamaindexMemoryStrategy } from "@/lib/strategies/frameworks/llamaindex-memory";
import { JoinedTexts } from "@/lib/strategies/frameworks/joined-texts";
import type { RoleMessage } from "@/lib/strategies/schemas";
import { countTextTokens } from "@/lib/tokens/count-tokens";
import type { EncodingName } from "@/lib/tokens/registry";

// Every case is generated, run through the real npm package and through our strategy; the kept
// messages (and their contents, for LangChain's partial pieces) must be the same, and where the
// package throws or answers [undefined], ours must refuse with a 422 (ValidationError).

const WORDS = ["the", "Lisbon", "weather", "42", "1999", "é", "日本", "don't", "I'll", "—", "ok", "{", "}", ":", "\"x\"", "café", "🙂", "a", "b"];
const SEPS = [" ", " ", " ", "\n", "\n\n", "  ", "\t", ", ", ". "];

const text = fc
  .tuple(fc.array(fc.tuple(fc.constantFrom(...WORDS), fc.constantFrom(...SEPS)), { maxLength: 14 }), fc.constantFrom("", "", "", "\n", " ", "<|endoftext|>"), fc.boolean())
  .map(([parts, tail, lead]) => (lead ? " " : "") + parts.map(([w, s]) => w + s).join("") + tail);

const content: fc.Arbitrary<RoleMessage["content"]> = fc.oneof(
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
const history: fc.Arbitrary<RoleMessage[]> = fc
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

// ---------------------------------------------------------------------------------------------
// LangChain JS trimMessages

const lcContent = (c: RoleMessage["content"]) =>
  typeof c === "string" ? c : c.map((p) => (p.type === "text" ? { type: "text" as const, text: p.text } : { type: "image_url" as const, image_url: { url: p.url ?? "" } }));

function toLangChain(m: RoleMessage): BaseMessage {
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

const lcKey = (m: BaseMessage | undefined) =>
  m === undefined ? "undefined" : JSON.stringify([m.getType(), m.content, (m as ToolMessage).tool_call_id ?? null, ((m as AIMessage).tool_calls ?? []).map((t) => t.id)]);

// The counters as a user writes them for trimMessages (the docs' definitions), on LangChain's own messages.
const blocksText = (c: BaseMessage["content"], f: (t: string) => number) =>
  typeof c === "string" ? f(c) : (c as { type: string; text?: string }[]).reduce((n, b) => n + (b.type === "text" ? f(b.text ?? "") : 0), 0);
const wordsOf = (t: string) => t.split(/\s+/).filter(Boolean).length;
const COUNTERS = {
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
const models = { o200k_base: modelCounter("o200k_base"), cl100k_base: modelCounter("cl100k_base") };

const lcType = fc.constantFrom<LangChainType>("human", "ai", "system", "tool");
const lcTypes = fc.option(fc.oneof(lcType, fc.uniqueArray(lcType, { minLength: 1, maxLength: 3 })), { nil: undefined });
const lcOptions: fc.Arbitrary<LangChainTrimOptions> = fc.record({
  max_tokens: fc.oneof(fc.integer({ min: 0, max: 12 }), fc.integer({ min: 0, max: 400 })),
  strategy: fc.constantFrom("first", "last", "last"),
  include_system: fc.boolean(),
  start_on: lcTypes,
  end_on: lcTypes,
  allow_partial: fc.boolean(),
  token_counter: fc.constantFrom("messages", "chars", "words", "model"),
}) as fc.Arbitrary<LangChainTrimOptions>;

async function runLangChain(messages: RoleMessage[], o: LangChainTrimOptions, encoding: EncodingName): Promise<string[] | "throws"> {
  // Fresh LangChain messages per run: trimMessages mutates the message it cuts with strategy first.
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
  }
}

function runOurs(messages: RoleMessage[], o: LangChainTrimOptions, encoding: EncodingName): string[] | "throws" {
  try {
    return langchainTrimStrategy(messages, o, { encoding }).messages.map((m) => lcKey(toLangChain(m)));
  } catch (e) {
    if (e instanceof ValidationError) return "throws";
    throw e;
  }
}

describe("langchain_trim keeps exactly what @langchain/core trimMessages keeps", () => {
  it("on generated histories, every option and counter", async () => {
    let refused = 0;
    let undefinedAnswers = 0;
    await fc.assert(
      fc.asyncProperty(history, lcOptions, fc.constantFrom<EncodingName>("o200k_base", "cl100k_base"), async (messages, o, encoding) => {
        const theirs = await runLangChain(messages, o, encoding);
        if (theirs === "throws" || theirs.includes("undefined")) {
          refused++;
          if (theirs !== "throws") undefinedAnswers++;
          expect(runOurs(messages, o, encoding)).toBe("throws");
        } else {
          expect(runOurs(messages, o, encoding)).toEqual(theirs);
        }
      }),
      { numRuns: 800, seed: 42 },
    );
    // The generator reaches the refusals, LangChain's [undefined] included.
    expect(refused).toBeGreaterThan(20);
    expect(undefinedAnswers).toBeGreaterThan(0);
  });

  it("reproduces the quirks the docs name", async () => {
    const msgs: RoleMessage[] = [
      { role: "system", content: "sys" },
      { role: "user", content: "find it" },
      { role: "assistant", content: "", tool_calls: [{ id: "c1", name: "lookup", arguments: "{}" }] },
      { role: "tool", tool_call_id: "c1", content: "result text" },
      { role: "assistant", content: "done" },
    ];
    // last keeps the tool result whose call was cut, and says so.
    const o: LangChainTrimOptions = { max_tokens: 2, strategy: "last", include_system: false, allow_partial: false, token_counter: "messages" };
    const r = langchainTrimStrategy(msgs, o, { encoding: "o200k_base" });
    expect(r.messages.map((m) => m.role)).toEqual(["tool", "assistant"]);
    expect(r.transformed).toContainEqual({ index: 3, action: "kept_unpaired", reason: "LangChain kept this tool result although its call was cut" });
    expect(await runLangChain(msgs, o, "o200k_base")).toEqual(r.messages.map((m) => lcKey(toLangChain(m))));
    // include_system with nothing that fits: LangChain answers [undefined]; we refuse with its name.
    const none = { ...o, max_tokens: 0, include_system: true, token_counter: "chars" as const };
    expect(await runLangChain(msgs, none, "o200k_base")).toEqual(["undefined"]);
    expect(() => langchainTrimStrategy(msgs, none, { encoding: "o200k_base" })).toThrow(/\[undefined\]/);
    // allow_partial on list content: each growing piece that fits is a message of its own.
    const list: RoleMessage[] = [{ role: "user", content: ["aa", "bb", "cc", "dd"].map((t) => ({ type: "text" as const, text: t })) }];
    const p = langchainTrimStrategy(list, { ...o, strategy: "first", max_tokens: 6, allow_partial: true, token_counter: "chars" }, { encoding: "o200k_base" });
    expect(p.messages.map((m) => (m.content as { text: string }[]).map((b) => b.text).join("|"))).toEqual(["aa", "aa|bb"]);
    expect(p.transformed[0]).toMatchObject({ index: 0, action: "split" });
  });
});

// ---------------------------------------------------------------------------------------------
// LlamaIndex ChatMemoryBuffer and Memory.getLLM

type LlamaMsg = { role: string; content: unknown; options?: unknown };
function toLlama(m: RoleMessage): LlamaMsg {
  const c = lcContent(m.content);
  if (m.role === "tool") return { role: "user", content: c, options: { toolResult: { id: m.tool_call_id, result: c, isError: false } } };
  if (m.role === "assistant" && m.tool_calls) {
    return { role: "assistant", content: c, options: { toolCall: m.tool_calls.map((t) => ({ id: t.id, name: t.name, input: JSON.parse(t.arguments) })) } };
  }
  return { role: m.role, content: c };
}
const llamaKey = (m: LlamaMsg) => JSON.stringify([m.role, m.content]);

const temporaryMessages = fc.array(
  content.map((c): RoleMessage => ({ role: "user", content: c })),
  { maxLength: 2 },
);

describe("llamaindex_buffer keeps exactly what llamaindex's ChatMemoryBuffer.getMessages keeps", () => {
  it("on generated histories, limits and call messages", async () => {
    let refused = 0;
    await fc.assert(
      fc.asyncProperty(
        history,
        temporaryMessages,
        fc.option(fc.integer({ min: 0, max: 300 }), { nil: undefined }),
        fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 60 })),
        fc.integer({ min: 1, max: 400 }),
        async (messages, temporary, tokenLimit, initial, contextWindow) => {
          const history = messages.map(toLlama);
          const transient = temporary.map(toLlama);
          const label = new Map<LlamaMsg, string>([...history.map((m, i) => [m, `h${i}`] as const), ...transient.map((m, i) => [m, `t${i}`] as const)]);
          let theirs: string[] | "throws";
          try {
            const buffer = new ChatMemoryBuffer({ tokenLimit, chatHistory: history as never, llm: { metadata: { contextWindow } } as never });
            const out = (await buffer.getMessages(transient.length ? (transient as never) : undefined, initial)) as LlamaMsg[];
            theirs = out.map((m) => label.get(m)!);
          } catch {
            theirs = "throws";
          }
          let ours: string[] | "throws";
          try {
            const r = llamaindexBufferStrategy(messages, { token_limit: tokenLimit, initial_token_count: initial, context_window: contextWindow }, { contextWindow: 1 }, temporary);
            let t = 0;
            // Temporary messages come first and are -1 in sourceIndex.
            ours = r.sourceIndex.map((s) => (s >= 0 ? `h${s}` : `t${temporary.length - r.sourceIndex.filter((x) => x < 0).length + t++}`));
          } catch (e) {
            if (!(e instanceof ValidationError)) throw e;
            ours = "throws";
          }
          if (theirs === "throws") refused++;
          expect(ours).toEqual(theirs);
        },
      ),
      { numRuns: 800, seed: 7 },
    );
    expect(refused).toBeGreaterThan(5);
  });
});

describe("llamaindex_memory keeps exactly what llamaindex's Memory.getLLM keeps", () => {
  it("on generated histories, limits, context windows and call messages", async () => {
    let refused = 0;
    await fc.assert(
      fc.asyncProperty(
        history,
        temporaryMessages,
        fc.integer({ min: 0, max: 400 }),
        fc.constantFrom(0, 0.3, 0.7, 1),
        fc.option(fc.integer({ min: 1, max: 500 }), { nil: null }),
        async (messages, temporary, tokenLimit, ratio, contextWindow) => {
          let theirs: string[] | "throws";
          try {
            const memory = new Memory([], { tokenLimit, shortTermTokenLimitRatio: ratio });
            for (const m of messages) await memory.add(toLlama(m) as never);
            const llm = { metadata: contextWindow ? { contextWindow } : {} };
            const out = (await memory.getLLM(llm as never, temporary.length ? (temporary.map(toLlama) as never) : undefined)) as LlamaMsg[];
            theirs = out.map(llamaKey);
          } catch {
            theirs = "throws";
          }
          let ours: string[] | "throws";
          try {
            const r = llamaindexMemoryStrategy(messages, { token_limit: tokenLimit, short_term_token_limit_ratio: ratio, context_window: contextWindow }, temporary);
            ours = r.messages.map((m) => llamaKey(toLlama(m)));
          } catch (e) {
            if (!(e instanceof ValidationError)) throw e;
            ours = "throws";
          }
          if (theirs === "throws") refused++;
          expect(ours).toEqual(theirs);
        },
      ),
      { numRuns: 800, seed: 11 },
    );
    expect(refused).toBeGreaterThan(5);
  });
});

describe("JoinedTexts counts every prefix and suffix as one count of the joined string", () => {
  it("matches countTextTokens of the joined texts", () => {
    fc.assert(
      fc.property(fc.array(text, { maxLength: 12 }), fc.constantFrom<EncodingName>("o200k_base", "cl100k_base"), (texts, encoding) => {
        const j = new JoinedTexts(texts, encoding);
        for (let k = 0; k <= texts.length; k++) {
          expect(j.prefix(k)).toBe(countTextTokens(texts.slice(0, k).join(" "), encoding));
          expect(j.suffix(k)).toBe(texts.length - k ? countTextTokens(texts.slice(k).join(" "), encoding) : 0);
        }
      }),
      { numRuns: 400, seed: 5 },
    );
  });
});
