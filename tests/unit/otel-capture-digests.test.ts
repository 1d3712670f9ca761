import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { oneShotDigest, sha256Hex } from "@/lib/capture/digest";
import type { CapturedChat } from "@/lib/capture/genai-span";
import { promptChain } from "@/lib/capture/prompt-store";
import { chainKeys, stableJson } from "@/lib/capture/store-captures";
import { anyCodePointString } from "../helpers/any-code-point";

// The ingest's digests were made cheaper (the one-shot crypto.hash, stableJson without its
// replacer when there is no key to sort; docs/benchmarks.md section 59). What they produce is
// stored (captured_spans.state_key and pred_key, captured_messages ids): it must not change, or
// a call stored before the change would no longer be found by its successor.

const SYSTEM = [{ type: "text", content: "Be brief. Ünïcödé 😀" }];
const INPUT = [
  { role: "user", parts: [{ type: "text", content: "Book a table for two" }] },
  { role: "assistant", parts: [{ type: "tool_call", id: "c1", name: "book", arguments: '{"size":2,"at":"19:00"}' }] },
  { role: "tool", parts: [{ type: "tool_call_response", id: "c1", response: { ok: true, ref: "B-7", zeta: 1, alpha: [2] } }] },
  { role: "assistant", parts: [{ type: "text", content: "Booked: B-7." }] },
  { role: "user", parts: [{ type: "text", content: "Thanks — and a taxi?" }] },
];
const OUTPUT = [{ role: "assistant", finish_reason: "stop", parts: [{ type: "text", content: "Taxi ordered for 18:40." }] }];

/** stableJson as it was: every object's keys sorted by the replacer. */
const sortedJson = (v: unknown) =>
  JSON.stringify(v, (_k, x) => (x && typeof x === "object" && !Array.isArray(x) ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => a.localeCompare(b))) : x));

describe("capture digests", () => {
  it("gives the continuation keys and prompt node ids the code gave before (computed with createHash and the sorting replacer)", () => {
    const chat = { appId: "pin-bot", systemInstructions: SYSTEM, inputMessages: INPUT, outputMessages: OUTPUT, conversationKey: null } as unknown as CapturedChat;
    const keys = chainKeys(chat);
    expect({ longest: keys.longest, count: keys.count, prefixes: keys.prefixes(), state: keys.state }).toEqual({
      longest: "aee26b35-6acc-0227-3c40-3ed8db735e67",
      count: 2,
      prefixes: [
        { key: "aee26b35-6acc-0227-3c40-3ed8db735e67", length: 4 },
        { key: "6ba3fe71-f868-105e-3c70-fce56a9df208", length: 2 },
      ],
      state: "3cc60985-1594-ea8c-3f75-a4612de69aa6",
    });
    const p = promptChain("00000000-0000-4000-8000-000000000001", SYSTEM, INPUT, OUTPUT);
    expect(p.nodes.map((n) => n.id)).toEqual(["ce6e412a-ef39-8e94-8593-257b3beb9424", "b2e49476-8bd5-17da-30c8-8b01d879f438", "8fe81f32-dc45-2ce4-31a4-3c7c46116e8f"]);
    expect(p.system?.id).toBe("1ad4dcb6-4bb4-b75c-bfdb-b8e65bec698a");
  });

  it("digests a string as createHash does, lone surrogates and astral characters included, with the one-shot digest on this Node", () => {
    expect(oneShotDigest).toBe(true);
    for (const s of ["", "abc", "é€😀", "\ud800x", "a\udfff", "x".repeat(10_000)]) expect(sha256Hex(s)).toBe(createHash("sha256").update(s).digest("hex"));
    fc.assert(fc.property(anyCodePointString(), (s) => sha256Hex(s) === createHash("sha256").update(s).digest("hex")), { numRuns: 50 });
  });

  it("writes any JSON value as the sorting replacer does, with or without objects in it", () => {
    expect(stableJson([["text", "a"], ["tool_call", "f", { b: 1, a: [{ d: 2, c: 3 }] }]])).toBe('[["text","a"],["tool_call","f",{"a":[{"c":3,"d":2}],"b":1}]]');
    fc.assert(fc.property(fc.jsonValue(), (v) => stableJson(v) === sortedJson(v)), { numRuns: 500 });
    fc.assert(fc.property(fc.array(fc.oneof(fc.string(), fc.integer(), fc.constant(null), fc.array(fc.string()))), (v) => stableJson(v) === JSON.stringify(v)));
  });
});
