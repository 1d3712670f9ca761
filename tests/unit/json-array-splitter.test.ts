import { describe, expect, it } from "vitest";
import { JsonArraySplitter, JsonArraySyntaxError } from "@/lib/imports/json-array-splitter";

// The element-at-a-time reader of a large conversations.json (lib/imports/start-upload.ts):
// the same values as JSON.parse of the whole, whatever the chunk boundaries.

function split(text: string, chunk: number): { values: unknown[]; object: boolean } {
  const bytes = Buffer.from(text, "utf8");
  const s = new JsonArraySplitter();
  const values: unknown[] = [];
  s.onValue = (v, i) => {
    expect(i).toBe(values.length);
    values.push(v);
  };
  for (let i = 0; i < bytes.length; i += chunk) s.write(bytes.subarray(i, i + chunk));
  s.end();
  return { values, object: s.topLevelObject };
}

describe("JsonArraySplitter", () => {
  const tricky = [
    { id: "a", mapping: { n: { parts: ["brackets ] } [ { in \"strings\"", "a backslash \\", "\\\"", "ünïcödé 🌸 日本"] } } },
    [],
    {},
    "a string element ]",
    12.5e3,
    -1,
    true,
    false,
    null,
    [[{ x: [1, { y: "}" }] }]],
  ];
  const text = `\uFEFF [\n ${tricky.map((t) => JSON.stringify(t, null, 1)).join(" ,\n")} \n]\n`;

  it("gives every element, parsed, at every chunk size (boundaries inside strings, escapes and multi-byte characters)", () => {
    for (const size of [1, 2, 3, 5, 7, 64, 1 << 20]) expect(split(text, size).values, `chunk ${size}`).toEqual(tricky);
  });

  it("an empty array gives nothing; an object at the top is told apart", () => {
    expect(split(" [ ] ", 1).values).toEqual([]);
    expect(split('{"a": [1]}', 3)).toEqual({ values: [], object: true });
  });

  it("bad JSON is a syntax error naming where: in an element, a missing comma, a trailing comma, an unclosed array", () => {
    for (const bad of ['[{"a": 1,}]', '[{"a":1} {"b":2}]', "[1,]", '[{"a":1}', "[1", "x", "", "[1] 2", "[,1]"]) {
      expect(() => split(bad, 2), bad).toThrow(JsonArraySyntaxError);
    }
    expect(() => split('[{"a":1},{"b":}]', 4)).toThrow(/element 1/);
  });
});
