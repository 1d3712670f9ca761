import { describe, expect, it } from "vitest";
import { CONTAINER_COST, JsonArraySplitter, type SplitterOptions } from "@/lib/streams/json-array-splitter";
import { JsonOffThreadError, parseJsonOffThread, SLICE_BYTES } from "@/lib/streams/json-off-thread";

// Issue 37: a streamed export's record whose parse would block the server (a 60 MB
// conversation) is parsed by the JSON worker (lib/streams/json-worker.mjs) instead of JSON.parse
// on the request thread: the splitter hands its bytes to `offThread.parse` and delivers its value,
// and every value after it, in order when settled() is awaited. The values are the inline parse's.

const opts = { maxHeapMb: 256, maxMs: 60_000, maxDepth: 256 };
const worker = (calls: number[]) => async (bytes: Uint8Array, index: number) => {
  calls.push(index);
  const r = await parseJsonOffThread({ bytes }, opts);
  return r.kind === "json" ? r.value : null;
};

/** Every element of `text` through a splitter, fed in `chunk`-byte pieces with settled() awaited after each (as the upload's pump does). */
async function read(text: string, chunk: number, offThread?: SplitterOptions["offThread"]) {
  const s = new JsonArraySplitter({ offThread });
  const values: unknown[] = [];
  s.onValue = (v, i) => {
    expect(i).toBe(values.length); // in order, whichever thread parsed it
    values.push(v);
  };
  const bytes = Buffer.from(text, "utf8");
  for (let i = 0; i < bytes.length; i += chunk) {
    s.write(bytes.subarray(i, i + chunk));
    await s.settled();
  }
  await s.settled();
  s.end();
  return values;
}

/** A ChatGPT-like conversation of `nodes` nodes of `chars` characters each. */
function conversation(id: string, nodes: number, chars: number) {
  const mapping: Record<string, unknown> = {};
  for (let n = 0; n < nodes; n++) {
    mapping[`n${n}`] = { id: `n${n}`, parent: n ? `n${n - 1}` : null, children: n + 1 < nodes ? [`n${n + 1}`] : [], message: { author: { role: n % 2 ? "assistant" : "user" }, create_time: 1700000000.25 + n, content: { content_type: "text", parts: [`${n} ünïcödé 🌸 "quoted" \\ ${"x".repeat(chars)}`] } } };
  }
  return { id, title: `t ${id}`, mapping, current_node: `n${nodes - 1}`, ["__proto__"]: { own: true }, empty: {}, none: [], deep: [[[{ a: [1, -2.5e-7, null, true, false] }]]] };
}

describe("records of a streamed export parsed off-thread", () => {
  it("the worker's value of a record larger than a slice is the inline parse's, in order with the small records around it", async () => {
    // One record of ~3 MB (three of the worker's slices), between small ones in the same chunks.
    const big = conversation("big", 300, 10_000);
    const text = `[${JSON.stringify(conversation("a", 2, 10))}, ${JSON.stringify(big)} ,${JSON.stringify(conversation("c", 3, 5))},{"x":"\\u2028\\ud83c\\udf38"},[]]`;
    expect(text.length).toBeGreaterThan(2 * SLICE_BYTES);
    const inline = await read(text, 1024 * 1024);
    expect(inline).toEqual(JSON.parse(text));
    const calls: number[] = [];
    const offThread = await read(text, 1024 * 1024, { fromCost: 1024 * 1024, parse: worker(calls) });
    expect(calls).toEqual([1]); // only the big record went to the worker
    expect(offThread).toEqual(inline);
    // A "__proto__" key of the document stays an own key whichever thread parsed it.
    expect(Object.getOwnPropertyDescriptor(offThread[1] as object, "__proto__")?.value).toEqual({ own: true });
  });

  it("the cost counts objects and arrays, not only bytes: many small nodes go to the worker under the byte threshold", async () => {
    const many = conversation("many", 2_000, 1); // ~0.5 MB but ~14 000 objects and arrays
    const text = JSON.stringify([many]);
    const calls: number[] = [];
    const fromCost = 1024 * 1024;
    expect(text.length).toBeLessThan(fromCost);
    expect(text.length + 12_000 * CONTAINER_COST).toBeGreaterThan(fromCost);
    expect(await read(text, 64 * 1024, { fromCost, parse: worker(calls) })).toEqual([many]);
    expect(calls).toEqual([0]);
  });

  it("every element sent to the worker gives JSON.parse's value, whatever the chunks", async () => {
    const text = JSON.stringify([conversation("p", 40, 3_000), { s: "a\\b\"c", n: [0, 1e21, -0.5] }, conversation("q", 1, 0), "scalar", 42, null]);
    const calls: number[] = [];
    expect(await read(text, 7_919, { fromCost: 0, parse: worker(calls) })).toEqual(JSON.parse(text));
    expect(calls).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it("settled() rejects with the worker's failure; the values before it were delivered", async () => {
    const s = new JsonArraySplitter({ offThread: { fromCost: 100, parse: worker([]) } });
    const seen: unknown[] = [];
    s.onValue = (v) => seen.push(v);
    // The second element's brackets balance (the scan finds it) but it is not JSON.
    const bad = `{"k": [${"1,".repeat(100)} ]}`;
    s.write(Buffer.from(`[{"ok":1}, ${bad}, {"after":2}]`));
    const err = await s.settled().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(JsonOffThreadError);
    expect((err as JsonOffThreadError).kind).toBe("syntax");
    expect(seen).toEqual([{ ok: 1 }]); // nothing after the failed record reaches onValue
  });
});
