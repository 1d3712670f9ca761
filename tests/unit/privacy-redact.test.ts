import { describe, expect, it } from "vitest";
import { redact, redactJson } from "@/lib/privacy/erase-text";
import { needles } from "@/lib/privacy/scan-columns";

describe("text erasure's replacement", () => {
  it("replaces every occurrence, the longest string first", () => {
    expect(redact("call 555-0100 or 555-0100 ext 2", ["555-0100", "555-0100 ext 2"])).toBe("call [erased] or [erased]");
  });
  it("replaces in JSON string values and keys, not numbers or structure", () => {
    expect(redactJson({ "Ann Lee": ["Ann Lee called", 3, { who: "Ann Lee" }], n: null }, ["Ann Lee"])).toEqual({
      "[erased]": ["[erased] called", 3, { who: "[erased]" }],
      n: null,
    });
  });
  it("looks for a string's JSON-escaped form in JSON columns", () => {
    expect(needles('say "hi"', true)).toEqual(['say "hi"', 'say \\"hi\\"']);
    expect(needles("plain", true)).toEqual(["plain"]);
  });
});
