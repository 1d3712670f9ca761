import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { JsonOffThreadError, parseJsonOffThread, SLICE_BYTES } from "../../lib/streams/json-off-thread";

// JSON of untrusted size parsed in a worker (lib/streams/json-worker.mjs) and handed back in
// slices: the value is the one JSON.parse gives, a document over the heap cap or the time limit
// is a failure of its kind (the worker stopped), and the server's thread keeps turning meanwhile.

const opts = { maxHeapMb: 256, maxMs: 30_000, maxDepth: 64 };
const bytes = (v: unknown) => new TextEncoder().encode(JSON.stringify(v));

describe("parseJsonOffThread", () => {
  it("gives back what JSON.parse gives: a top-level array split in slices, arrays under an object's keys, scalars, odd keys and strings", async () => {
    const big = Array.from({ length: 5000 }, (_, i) => ({ id: i, text: "x".repeat(500), nested: { deep: [i, null, true, 1e300] } }));
    expect(JSON.stringify(big).length).toBeGreaterThan(2 * SLICE_BYTES); // several slices
    const r1 = await parseJsonOffThread({ bytes: bytes(big) }, opts);
    expect(r1).toEqual({ kind: "json", value: big });

    const doc = JSON.parse(`{"conversations": ${JSON.stringify(big)}, "one": [1], "empty": [], "n": 3, "s": "\\ud800 lone", "__proto__": {"a": 1}}`);
    const r2 = await parseJsonOffThread({ bytes: bytes(doc) }, opts);
    expect(r2.kind).toBe("json");
    const v = (r2 as { value: Record<string, unknown> }).value;
    expect(v).toEqual(doc);
    expect(Object.keys(v)).toEqual(Object.keys(doc)); // key order kept, __proto__ an own key
    expect(v.s).toBe("\ud800 lone");

    // One record holding everything, deep down (OTLP: one resourceSpans of one scopeSpans of all spans), and a large object's keys.
    const deep = { resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ scope: { name: "s" }, spans: big }] }], map: Object.fromEntries(big.map((b, i) => [`k${i}`, b])) };
    expect(await parseJsonOffThread({ bytes: bytes(deep) }, opts)).toEqual({ kind: "json", value: deep });

    for (const scalar of [42, "text", null, true]) expect(await parseJsonOffThread({ bytes: bytes(scalar) }, opts)).toEqual({ kind: "json", value: scalar });
  });

  it("reads a file in the worker, strips a BOM, and reads JSON lines when allowed (bad lines named)", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "json-off-thread-"));
    try {
      const file = path.join(dir, "a.jsonl");
      fs.writeFileSync(file, `\uFEFF{"a":1}\n\nnot json\n{"b":[2]}\n`);
      const r = await parseJsonOffThread({ file }, { ...opts, jsonl: true });
      expect(r).toEqual({
        kind: "jsonl",
        lines: [
          { value: { a: 1 }, record: "line 1", raw: '\uFEFF{"a":1}'.slice(1) },
          { value: { b: [2] }, record: "line 4", raw: '{"b":[2]}' },
        ],
        bad: [{ record: "line 3", message: expect.stringContaining("not JSON") }],
      });
      await expect(parseJsonOffThread({ file }, opts)).rejects.toMatchObject({ kind: "syntax" });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("an empty document and invalid UTF-8 (when fatal) are failures of their kind", async () => {
    await expect(parseJsonOffThread({ bytes: new TextEncoder().encode("  \n") }, opts)).rejects.toMatchObject({ kind: "empty" });
    await expect(parseJsonOffThread({ bytes: new Uint8Array([0x22, 0xff, 0x22]) }, { ...opts, fatalUtf8: true })).rejects.toMatchObject({ kind: "syntax" });
  });

  it("a document whose parse would pass half the heap cap is refused before it is parsed (a memory failure naming the estimate)", async () => {
    // 30 MB of empty arrays: ~10 M JavaScript arrays once parsed (~500 MB), over a 256 MB cap.
    const text = `[${"[],".repeat(10_000_000)}[]]`;
    const t = performance.now();
    const err = await parseJsonOffThread({ bytes: new TextEncoder().encode(text) }, opts).catch((e) => e);
    expect(err).toBeInstanceOf(JsonOffThreadError);
    expect(err.kind).toBe("memory");
    expect(err.message).toMatch(/10000002 objects and arrays/);
    expect(performance.now() - t).toBeLessThan(20_000); // refused by the scan, not by a GC-bound parse
    // Under the estimate, the same shape parses.
    const small = `[${"[],".repeat(100_000)}[]]`;
    expect((await parseJsonOffThread({ bytes: new TextEncoder().encode(small) }, opts)).kind).toBe("json");
  });

  it("nesting past maxDepth is a depth failure", async () => {
    const err = await parseJsonOffThread({ bytes: new TextEncoder().encode(`${"[".repeat(65)}${"]".repeat(65)}`) }, opts).catch((e) => e);
    expect(err.kind).toBe("depth");
    expect((await parseJsonOffThread({ bytes: new TextEncoder().encode(`${"[".repeat(64)}${"]".repeat(64)}`) }, opts)).kind).toBe("json");
  });

  it("a parse over the time limit is a time failure, and this thread keeps turning meanwhile", async () => {
    const text = `[${'{"a":[1,2,3],"b":"xxxxxxxxxx"},'.repeat(300_000)}{}]`;
    let ticks = 0;
    const iv = setInterval(() => ticks++, 5);
    const err = await parseJsonOffThread({ bytes: new TextEncoder().encode(text) }, { ...opts, maxMs: 20 }).catch((e) => e);
    clearInterval(iv);
    expect(err).toBeInstanceOf(JsonOffThreadError);
    expect(err.kind).toBe("time");
  });
});
