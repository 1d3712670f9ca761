import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { jsonArrayValues, JsonArraySplitter, JsonArraySyntaxError } from "@/lib/streams/json-array-splitter";

// The element-at-a-time reader of a large conversations.json (lib/imports/start-upload.ts) and
// of a LongMemEval / LoCoMo file (lib/evals/benchmark-records.ts, through jsonArrayValues):
// the same values as JSON.parse of the whole, whatever the chunk boundaries.

function split(text: string, chunk: number): { values: unknown[]; object: boolean } {
  const bytes = Buffer.from(text, "utf8");
  const cuts: number[] = [];
  for (let i = chunk; i < bytes.length; i += chunk) cuts.push(i);
  return splitAt(bytes, cuts);
}

/** The bytes fed in chunks ending at `cuts` (sorted byte offsets). */
function splitAt(bytes: Buffer, cuts: number[]): { values: unknown[]; object: boolean } {
  const s = new JsonArraySplitter();
  const values: unknown[] = [];
  s.onValue = (v, i) => {
    expect(i).toBe(values.length);
    values.push(v);
  };
  let from = 0;
  for (const at of [...cuts, bytes.length]) {
    s.write(bytes.subarray(from, at));
    from = at;
  }
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

  // Strings are skipped with a native search for their closing quote (not a byte at a time):
  // a quote after an odd run of backslashes, a run split across chunks, a chunk ending in a
  // backslash must all read as JSON.parse reads them, wherever the chunks are cut.
  it("reads what JSON.parse reads wherever the chunks are cut (strings dense in quotes and backslashes)", () => {
    const nasty = fc.string({ unit: fc.constantFrom("\\", '"', "\\\\", '\\"', "a", "]", "}", "{", "[", ",", "é", "🌸", "\n", " ") });
    const value = fc.letrec((tie) => ({
      v: fc.oneof({ depthSize: "small" }, nasty, fc.integer(), fc.constant(null), fc.array(tie("v"), { maxLength: 4 }), fc.dictionary(nasty, tie("v"), { maxKeys: 3 })),
    })).v;
    fc.assert(
      fc.property(fc.array(value, { maxLength: 6 }), fc.array(fc.nat(), { maxLength: 12 }), (elements, rawCuts) => {
        const bytes = Buffer.from(JSON.stringify(elements), "utf8");
        const cuts = [...new Set(rawCuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
        expect(splitAt(bytes, cuts).values).toEqual(elements);
      }),
      { numRuns: 400 },
    );
  });

  // The evals import pulls records with jsonArrayValues, from bytes (an upload read from disk)
  // or text (an API body): the same records, in order, wherever the chunks are cut, inside a
  // multi-byte UTF-8 character or between the halves of a surrogate pair.
  it("jsonArrayValues: records identical whatever the cuts, in bytes or in text", async () => {
    const text = fc.string({ unit: fc.constantFrom("\\", '"', '\\"', "a", "]", "}", "{", "[", ",", "é", "日", "🌸", "\n", " ") });
    const record = fc.dictionary(text, fc.oneof(text, fc.integer(), fc.array(text, { maxLength: 3 }), fc.dictionary(text, text, { maxKeys: 2 })), { maxKeys: 4 });
    const read = async (chunks: (Uint8Array | string)[]) => {
      const out: unknown[] = [];
      for await (const { index, value } of jsonArrayValues(chunks, { scalars: false })) {
        expect(index).toBe(out.length);
        out.push(value);
      }
      return out;
    };
    const cutAt = <T extends Uint8Array | string>(whole: T, raw: number[]): T[] => {
      const cuts = [...new Set(raw.map((c) => c % (whole.length + 1)))].sort((a, b) => a - b);
      return [...cuts, whole.length].map((at, i) => whole.slice(i ? cuts[i - 1] : 0, at) as T);
    };
    await fc.assert(
      fc.asyncProperty(fc.array(record, { maxLength: 5 }), fc.array(fc.nat(), { maxLength: 12 }), async (records, rawCuts) => {
        const json = ` \n${JSON.stringify(records, null, 1)}\n`;
        expect(await read(cutAt(Buffer.from(json, "utf8"), rawCuts))).toEqual(records);
        expect(await read(cutAt(json, rawCuts))).toEqual(records);
      }),
      { numRuns: 300 },
    );
  });

  it("jsonArrayValues: a chunk larger than its 64 KiB slices (an API body is one chunk), a surrogate pair at a slice's end", async () => {
    const pad = "a".repeat(65536 - 1 - '[{"k":"'.length);
    const records = [{ k: `${pad}🌸` }, ...Array.from({ length: 5000 }, (_, i) => ({ i, t: "日本🌸" }))];
    const json = JSON.stringify(records);
    expect(json.charCodeAt(65535)).toBe(0xd83c); // the high half ends the first text slice
    for (const chunk of [json, Buffer.from(json, "utf8")]) {
      const out: unknown[] = [];
      for await (const { value } of jsonArrayValues([chunk])) out.push(value);
      expect(out).toEqual(records);
    }
  });

  it("errors say what went wrong (kind) and where (index), for each caller to word", () => {
    const kindOf = (text: string, opts = {}) => {
      const s = new JsonArraySplitter(opts);
      try {
        s.write(Buffer.from(text, "utf8"));
        s.end();
      } catch (e) {
        const err = e as JsonArraySyntaxError;
        return [err.kind, err.index, err.found];
      }
      return null;
    };
    expect(kindOf("  ")).toEqual(["empty", 0, ""]);
    expect(kindOf(" é")).toEqual(["not_array", 0, "é"]);
    expect(kindOf("🌸")).toEqual(["not_array", 0, "🌸"]);
    expect(kindOf('[{"a":1}, 2]', { scalars: false })).toEqual(["not_object", 1, "2"]);
    expect(kindOf('[{"a":1}, 2]')).toBeNull();
    expect(kindOf('[{"a":1}, {"b":}]')).toEqual(["element", 1, ""]);
    expect(kindOf('[{"a":1} {"b":2}]')).toEqual(["unexpected", 1, "{"]);
    expect(kindOf('[{"a":1},')).toEqual(["unclosed", 1, ""]);
    expect(kindOf("[1] x")).toEqual(["trailing", 1, "x"]);
  });
});
