import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkJsonValue, MAX_DEPTH, MAX_KEYS } from "@/lib/http/input-guard";

// The guard every JSON body passes before its schema: bad text, depth and key counts refused
// with the field named as the body's own path.

function refusal(value: unknown, where = "body"): { code: string; field: string } | null {
  try {
    checkJsonValue(value, where);
    return null;
  } catch (e) {
    const err = e as { code: string; details: { field: string }[] };
    return { code: err.code, field: err.details[0].field };
  }
}

describe("the JSON input guard", () => {
  it("names the field of a NUL, a lone surrogate or a bad key, wherever it is", () => {
    expect(refusal({ messages: [{ content: "ok" }, { content: "a\u0000b" }] })).toEqual({ code: "unsupported_text", field: "body.messages[1].content" });
    expect(refusal([{ x: ["fine", "\ud800"] }], "query")).toEqual({ code: "unsupported_text", field: "query[0].x[1]" });
    expect(refusal({ a: { ["k\udc00"]: 1 } }, "")).toEqual({ code: "unsupported_text", field: "a.k\udc00 (key)" });
    expect(refusal("\u0000", "")).toEqual({ code: "unsupported_text", field: "body" });
  });

  it("accepts emoji (surrogate pairs) and text next to them", () => {
    expect(refusal({ text: "party 🎉 time", list: ["😀", "a😀b"] })).toBeNull();
  });

  it("names where a value nested too deep starts, and an object with too many keys", () => {
    let deep: unknown = "x";
    for (let i = 0; i < MAX_DEPTH + 1; i++) deep = [deep];
    const full = `body.a${"[0]".repeat(MAX_DEPTH - 1)}`;
    expect(refusal({ a: deep })).toEqual({ code: "nesting_too_deep", field: `${full.slice(0, 80)}…` });
    const wide = Object.fromEntries(Array.from({ length: MAX_KEYS + 1 }, (_, i) => [`k${i}`, i]));
    expect(refusal({ list: [wide] })).toEqual({ code: "too_many_keys", field: "body.list[0]" });
  });

  it("refuses a string exactly when it holds a NUL or an unpaired surrogate", () => {
    const unit = fc.constantFrom("a", "\u0000", "\ud83d", "\ude00", "\ud83d\ude00", "é", " ");
    fc.assert(
      fc.property(fc.array(unit, { maxLength: 8 }).map((xs) => xs.join("")), (s) => {
        const bad = s.includes("\u0000") || /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s);
        expect(refusal({ s }) !== null).toBe(bad);
      }),
      { numRuns: 2000 },
    );
  });
});
