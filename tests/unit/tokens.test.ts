import { get_encoding } from "tiktoken";
import { afterAll, describe, expect, it } from "vitest";
import { countChatTokens, IMAGE_PART_TOKENS } from "@/lib/tokens/chat-formula";
import { countTextTokens } from "@/lib/tokens/count-tokens";
import { resolveTokenizer } from "@/lib/tokens/registry";

const o200k = get_encoding("o200k_base");
const cl100k = get_encoding("cl100k_base");
afterAll(() => {
  o200k.free();
  cl100k.free();
});

describe("tokenizer registry", () => {
  it.each([
    ["gpt-4o", "o200k_base"],
    ["gpt-4o-mini-2024-07-18", "o200k_base"],
    ["gpt-4.1-nano", "o200k_base"],
    ["o1", "o200k_base"],
    ["o3-mini", "o200k_base"],
    ["o4-mini", "o200k_base"],
    ["gpt-5", "o200k_base"],
    ["gpt-5-mini", "o200k_base"],
    ["gpt-4", "cl100k_base"],
    ["gpt-4-turbo", "cl100k_base"],
    ["gpt-4-0613", "cl100k_base"],
    ["gpt-3.5-turbo", "cl100k_base"],
  ])("%s uses %s exactly", (model, encoding) => {
    expect(resolveTokenizer(model)).toEqual({ model, encoding, approximate: false });
  });

  it("unknown models fall back to o200k_base, flagged approximate", () => {
    expect(resolveTokenizer("claude-3-5-sonnet")).toEqual({ model: "claude-3-5-sonnet", encoding: "o200k_base", approximate: true });
    expect(resolveTokenizer("o")).toMatchObject({ approximate: true });
  });

  it("an empty model means the default gpt-4o", () => {
    expect(resolveTokenizer("")).toMatchObject({ model: "gpt-4o", encoding: "o200k_base", approximate: false });
  });
});

describe("chat token formula (OpenAI cookbook)", () => {
  const messages = [
    { role: "system" as const, content: "You are a helpful travel assistant." },
    { role: "user" as const, content: "Plan 4 days in Lisbon, no shellfish — 120€/day. 日本語も少し。" },
    { role: "assistant" as const, content: "Day 1: Alfama and the castle.\nDay 2: Belém." },
    { role: "user" as const, content: "Thanks!", name: "ana" },
  ];

  it.each([
    ["o200k_base", o200k],
    ["cl100k_base", cl100k],
  ] as const)("matches tiktoken counted by hand (%s)", (name, enc) => {
    let expected = 3; // reply priming
    for (const m of messages) {
      expected += 3 + enc.encode(m.role).length + enc.encode(m.content).length;
      if (m.name) expected += 1 + enc.encode(m.name).length;
    }
    expect(countChatTokens(messages, name)).toBe(expected);
    for (const m of messages) expect(countTextTokens(m.content, name)).toBe(enc.encode(m.content).length);
  });

  it("an empty list is 0", () => {
    expect(countChatTokens([], "o200k_base")).toBe(0);
  });

  it("image parts count a fixed low-detail cost, text parts their tokens", () => {
    const n = countChatTokens(
      [{ role: "user", content: [{ type: "image", transfer_method: "remote_url", url: "x" }, { type: "text", text: "hi" }] }],
      "o200k_base",
    );
    expect(n).toBe(3 + 3 + o200k.encode("user").length + IMAGE_PART_TOKENS + o200k.encode("hi").length);
  });
});

describe("parallel token counting for imports", () => {
  it("gives the same counts as tiktoken for a batch large enough to use worker threads", async () => {
    const { countTextsAllEncodings } = await import("@/lib/tokens/count-tokens-parallel");
    const texts = Array.from({ length: 1200 }, (_, i) => (i % 7 === 0 ? "" : `Turn ${i}: ${"naïve café 東京 ".repeat(i % 13)}done.`));
    const counts = await countTextsAllEncodings(texts);
    texts.forEach((t, i) => {
      expect(counts.o200k_base[i]).toBe(o200k.encode_ordinary(t).length);
      expect(counts.cl100k_base[i]).toBe(cl100k.encode_ordinary(t).length);
    });
  });
});
