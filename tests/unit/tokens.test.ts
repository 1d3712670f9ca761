import { execFileSync } from "node:child_process";
import path from "node:path";
import { get_encoding } from "tiktoken";
import { afterAll, describe, expect, it } from "vitest";
import { countChatTokens, IMAGE_PART_TOKENS } from "@/lib/tokens/chat-formula";
import fc from "fast-check";
import { countText, countTextTokens, hasLongPiece, MAX_PIECE_BYTES } from "@/lib/tokens/count-tokens";
import { resolveTokenizer } from "@/lib/tokens/registry";
import { anyCodePointString } from "../helpers/any-code-point";
import { LOADED_MACHINE_TIMEOUT_MS } from "../helpers/loaded-machine";

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

// Seeded, so a failure is reproducible.
function noise(seed: number) {
  let x = seed >>> 0;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}
const MB = 1 << 20;
const encodings = [
  ["o200k_base", o200k],
  ["cl100k_base", cl100k],
] as const;

// Ordinary text of many kinds, with the long runs of spaces and dashes code and markdown have
// (they make the counter look for long pieces, and it must still be exact).
const PROSE = [
  "The quick brown fox jumps over the lazy dog. It's 9:45 and we'll see; they'd said 1,234,567.89 ",
  "naïve café — «quoted» 東京の天気は晴れです。Привет, как дела? مرحبا بالعالم 👨‍👩‍👧 🙂\n",
  "```ts\nfunction f(x: number) {\n" + " ".repeat(64) + "return x * 2; // doubled\n}\n```\n",
  "| col | col |\n|" + "-".repeat(70) + "|\n\thttps://example.com/a/b?c=d&e=f#g\r\n",
  "İstanbul ǅ ʰ Ⅻ ١٢٣ ſt 'S 'LL 'Re\u00a0\u0085\u3000 x\ufeffy \n\n\n",
].join("");

// Megabytes through tiktoken and property runs: correctness checks, each given a loaded machine's time.
describe("bounded token counting", { timeout: LOADED_MACHINE_TIMEOUT_MS }, () => {
  it.each(encodings)("ordinary prose (200 KB) counts exactly as plain tiktoken, not approximate (%s)", (name, enc) => {
    const text = PROSE.repeat(Math.ceil((200 * 1024) / PROSE.length));
    expect(countText(text, name)).toEqual({ tokens: enc.encode_ordinary(text).length, approximate: false });
  });

  it.each(encodings)("random mixes of letters, scripts, digits, symbols and white space count exactly (%s)", (name, enc) => {
    const parts = ["a", "Zebra", " ", "\n", "\r\n", "\t", "'s", "'LL", "ſ", "é", "e\u0301", "東京", "🙂", "1", "2345", "!", "?/", "//", "\u00a0", "\u0085", "\ufeff", "\u3000", "-", "—", "ß", "İ", "ǅ", "ʰ", "١", ".\n"];
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom(...parts), fc.integer({ min: 1, max: 60 })), { maxLength: 200 }),
        (runs) => {
          const text = runs.map(([p, n]) => p.repeat(n)).join("");
          const r = countText(text, name);
          // Runs over MAX_PIECE_BYTES may be approximate; everything else is exact.
          if (!r.approximate) expect(r.tokens).toBe(enc.encode_ordinary(text).length);
          expect(r.approximate).toBe(hasLongPiece(text, name));
        },
      ),
      { numRuns: 300, seed: 9 },
    );
  });

  // The counter splits text into pieces itself and remembers each piece's count: any code
  // point, in any order, must split as tiktoken splits it, and a remembered count must be
  // the same as a fresh one.
  it.each(encodings)("any Unicode text counts exactly, the first time and again from remembered pieces (%s)", (name, enc) => {
    fc.assert(
      fc.property(anyCodePointString({ maxLength: 300 }), fc.string({ unit: "grapheme", maxLength: 300 }), (a, b) => {
        for (const text of [a, b, a + b]) {
          const expected = enc.encode_ordinary(text).length;
          const first = countText(text, name);
          if (!first.approximate) expect(first.tokens).toBe(expected);
          expect(countText(text, name)).toEqual(first);
        }
      }),
      { numRuns: 500, seed: 11 },
    );
  });

  it.each(encodings)("tool output (log lines, JSON, a stack trace) counts exactly as plain tiktoken (%s)", (name, enc) => {
    const rnd = noise(3);
    const logs = Array.from({ length: 400 }, (_, i) => `2026-11-23T08:${String(i % 60).padStart(2, "0")}:01.${(rnd() * 999) | 0}Z INFO svc-${i % 7} latency_ms=${(rnd() * 900) | 0} status=200 path=/api/v1/items/${(rnd() * 1e6) | 0}\n`).join("");
    const json = JSON.stringify(Array.from({ length: 200 }, (_, i) => ({ id: `id_${(rnd() * 1e9) | 0}`, ok: i % 3 === 0, score: rnd(), tags: ["a", "b"] })), null, 2);
    const trace = "Error: boom\n" + Array.from({ length: 50 }, (_, i) => `    at fn${i} (/srv/app/node_modules/pkg/dist/index.js:${i * 7}:${i})\n`).join("");
    for (const text of [logs, json, trace]) expect(countText(text, name)).toEqual({ tokens: enc.encode_ordinary(text).length, approximate: false });
  });

  // 512 KB: 57 600 distinct short pieces, past the 50 000 the piece cache holds (bounded-count.mjs),
  // so the count goes on across a cache clear; 1 MB (110 000) proved no more at twice the CPU.
  it.each(encodings)("512 KB of base64 noise (more distinct pieces than the piece cache holds) counts exactly as plain tiktoken (%s)", (name, enc) => {
    const rnd = noise(1);
    const text = Buffer.from(Uint8Array.from({ length: (MB / 2) * 0.75 }, () => (rnd() * 256) | 0)).toString("base64");
    expect(countText(text, name)).toEqual({ tokens: enc.encode_ordinary(text).length, approximate: false });
  });

  // Plain tiktoken needs minutes for these (1 MB of one letter crashes its WASM module), so
  // they are compared with plain tiktoken on an 8 KB sample of the same text, scaled up.
  it.each(encodings)("1 MB of one letter is counted, flagged approximate, within 1%% of the exact density (%s)", (name, enc) => {
    const sample = enc.encode_ordinary("a".repeat(8192)).length;
    const r = countText("a".repeat(MB), name);
    expect(r.approximate).toBe(true);
    expect(Math.abs(r.tokens - sample * 128) / (sample * 128)).toBeLessThan(0.01);
  });

  it.each(encodings)("1 MB of DNA-like ACGT is counted, flagged approximate, within 2%% of the exact density (%s)", (name, enc) => {
    const rnd = noise(2);
    // Written into bytes, not joined from a million one-letter strings (the same letters: a
    // tenth of this case's CPU went to building the text).
    const dna = (n: number) => {
      const bytes = Buffer.allocUnsafe(n);
      for (let i = 0; i < n; i++) bytes[i] = "ACGT".charCodeAt((rnd() * 4) | 0);
      return bytes.toString("latin1");
    };
    const sample = enc.encode_ordinary(dna(8192)).length;
    const r = countText(dna(MB), name);
    expect(r.approximate).toBe(true);
    expect(Math.abs(r.tokens - sample * 128) / (sample * 128)).toBeLessThan(0.02);
  });

  it("a long piece is split between code points, never inside a surrogate pair", () => {
    const text = "🙂".repeat(5000); // one piece; a split inside a pair would count U+FFFD halves
    const r = countText(text, "o200k_base");
    expect(r.approximate).toBe(true);
    const perFace = o200k.encode_ordinary("🙂".repeat(64)).length / 64;
    expect(r.tokens / 5000).toBeCloseTo(perFace, 1);
  });

  it("long pieces are the only approximation: MAX_PIECE_BYTES is where it starts", () => {
    expect(hasLongPiece("x".repeat(MAX_PIECE_BYTES), "o200k_base")).toBe(false);
    expect(hasLongPiece("x".repeat(MAX_PIECE_BYTES + 1), "o200k_base")).toBe(true);
    expect(hasLongPiece(("word ".repeat(100) + "\n").repeat(100), "cl100k_base")).toBe(false);
  });
});

describe("parallel token counting for imports", () => {
  it("counts a large batch in the worker pool (not the inline fallback), with tiktoken's counts", async () => {
    const { countTextsAllEncodings } = await import("@/lib/tokens/count-tokens-parallel");
    const texts = Array.from({ length: 1200 }, (_, i) => (i % 7 === 0 ? "" : `Turn ${i}: ${"naïve café 東京 ".repeat(i % 13)}done.`));
    // The pool's bounds turn counts into estimates on a machine starved long enough (at load
    // 20-37, niced beside a build, this once came back estimated); what this checks is the
    // counts, so its bounds are the suite's time-out. The bound itself: the worker test below.
    const counts = await countTextsAllEncodings(texts, { boundMs: LOADED_MACHINE_TIMEOUT_MS });
    expect(counts.path).toBe("pool");
    texts.forEach((t, i) => {
      expect(counts.o200k_base[i]).toBe(o200k.encode_ordinary(t).length);
      expect(counts.cl100k_base[i]).toBe(cl100k.encode_ordinary(t).length);
    });
    expect([...counts.approximate].every((a) => a === 0)).toBe(true);
  }, LOADED_MACHINE_TIMEOUT_MS);

  it("counts each distinct text once (exports repeat texts); every repeat gets its text's counts", async () => {
    const { countTextsAllEncodings } = await import("@/lib/tokens/count-tokens-parallel");
    const { textsCountedHere } = await import("@/lib/tokens/count-tokens");
    const texts = ["Same question?", "An answer.", "Same question?", "Another answer!", "Same question?", ""];
    const before = textsCountedHere();
    const counts = await countTextsAllEncodings(texts); // small: inline, where texts counted are seen
    expect(counts.path).toBe("inline");
    expect(textsCountedHere() - before).toBe(4 * 2); // 4 distinct texts, 2 encodings
    texts.forEach((t, i) => {
      expect(counts.o200k_base[i]).toBe(o200k.encode_ordinary(t).length);
      expect(counts.cl100k_base[i]).toBe(cl100k.encode_ordinary(t).length);
    });
  });

  it("a pool's worker counts only its own encoding (one encoder's memory per thread): another is refused", async () => {
    const { Piscina } = await import("piscina");
    const pool = new Piscina({ filename: path.resolve("lib/tokens/token-worker.mjs"), workerData: { encoding: "o200k_base" }, maxThreads: 1 });
    try {
      const ok = (await pool.run({ texts: ["Hello there"], encoding: "o200k_base", boundMs: LOADED_MACHINE_TIMEOUT_MS })) as { tokens: Int32Array };
      expect([...ok.tokens]).toEqual([o200k.encode_ordinary("Hello there").length]);
      await expect(pool.run({ texts: ["Hello there"], encoding: "cl100k_base", boundMs: 1000 })).rejects.toThrow(/counts o200k_base, not cl100k_base/);
    } finally {
      await pool.destroy();
    }
  }, LOADED_MACHINE_TIMEOUT_MS);

  it("counts 2 MB of one letter in the pool while this thread keeps running, flagged approximate", async () => {
    const { countTextsAllEncodings } = await import("@/lib/tokens/count-tokens-parallel");
    const text = "a".repeat(2 * MB);
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    const counts = await countTextsAllEncodings(["hi", text], { boundMs: LOADED_MACHINE_TIMEOUT_MS });
    clearInterval(timer);
    expect(counts.path).toBe("pool");
    expect([...counts.approximate]).toEqual([0, 1]);
    expect(counts.o200k_base[1]).toBe(countText(text, "o200k_base").tokens);
    expect(counts.cl100k_base[1]).toBe(countText(text, "cl100k_base").tokens);
    // Counting inline would block this thread: the timer could not fire until the end.
    expect(ticks).toBeGreaterThan(3);
  }, LOADED_MACHINE_TIMEOUT_MS);

  it("a worker's first slice builds its encoder before its counting bound starts", () => {
    // In a new process, where no encoder is built yet. The bound is half the time this machine
    // (at its load of the moment) took to build cl100k_base; o200k_base, twice its size, takes
    // 2-3 times that to build, so a bound that counted the build would estimate "hello there".
    const script = `
      import { createRequire } from "node:module";
      import { pathToFileURL } from "node:url";
      const { get_encoding } = createRequire(process.cwd() + "/")("tiktoken");
      const { default: countSlice } = await import(pathToFileURL("lib/tokens/token-worker.mjs").href);
      const t = performance.now();
      get_encoding("cl100k_base").free();
      const boundMs = (performance.now() - t) / 2;
      const r = countSlice({ texts: ["hello there"], encoding: "o200k_base", boundMs });
      console.log(JSON.stringify({ boundMs, tokens: [...r.tokens], approximate: [...r.approximate] }));`;
    const out = JSON.parse(execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8", timeout: LOADED_MACHINE_TIMEOUT_MS }));
    expect(out, JSON.stringify(out)).toMatchObject({ tokens: [o200k.encode_ordinary("hello there").length], approximate: [0] });
  }, LOADED_MACHINE_TIMEOUT_MS);

  it("a worker's slice past its counting bound estimates the rest (4 UTF-8 bytes a token), flagged approximate", async () => {
    const { default: countSlice } = await import("@/lib/tokens/token-worker.mjs");
    const texts = ["naïve café 東京", "hello there", ""];
    const exact = countSlice({ texts, encoding: "o200k_base", boundMs: 60_000 });
    expect([...exact.tokens]).toEqual(texts.map((t) => o200k.encode_ordinary(t).length));
    expect([...exact.approximate]).toEqual([0, 0, 0]);
    // The bound is counting time, started when the slice runs: a spent bound estimates every
    // text (an empty one is still exactly 0).
    const spent = countSlice({ texts, encoding: "o200k_base", boundMs: -1 });
    expect([...spent.tokens]).toEqual(texts.map((t) => Math.ceil(Buffer.byteLength(t) / 4)));
    expect([...spent.approximate]).toEqual([1, 1, 0]);
  });

  it("counts a small batch inline", async () => {
    const { countTextsAllEncodings } = await import("@/lib/tokens/count-tokens-parallel");
    const counts = await countTextsAllEncodings(["hello there", ""]);
    expect(counts.path).toBe("inline");
    expect(counts.o200k_base[0]).toBe(o200k.encode_ordinary("hello there").length);
  });
});
