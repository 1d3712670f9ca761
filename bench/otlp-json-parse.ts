// npm run bench:otlp-json — issue 37 item 2: an OTLP/JSON body parsed on the request thread
// (JSON.parse) or in a worker (lib/streams/json-off-thread.ts), by body size. In process, no
// server. Per size, median of BENCH_RUNS: the time to a parsed value and the longest stretch the
// calling thread was blocked meanwhile (inline: all of it, JSON.parse is one task; the worker: the
// event-loop delay's max while a 1 ms timer runs). OTLP_JSON_WORKER_FROM_BYTES
// (lib/capture/read-otlp-body.ts) is set from these figures (docs/benchmarks.md section 24).
import { monitorEventLoopDelay } from "node:perf_hooks";
import { parseJsonOffThread } from "../lib/streams/json-off-thread";

const RUNS = Number(process.env.BENCH_RUNS || 5);
const WORDS = "the of and to in is you that it he was for on are as with his they at be this have from or one had by word but not what all were we when your can said there use an each which she do how their account travel booking refund policy customer order shipping delivery".split(" ");
let seed = 11;
const rnd = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
const prose = (chars: number) => {
  let s = "";
  while (s.length < chars) s += `${WORDS[Math.floor(rnd() * WORDS.length)]} `;
  return s;
};
const kv = (key: string, v: string) => ({ key, value: { stringValue: v } });
const text = (role: string, content: string) => ({ role, parts: [{ type: "text", content }] });
/** A chat span as the GenAI instrumentations send it: system prompt, history, answer, a few scalars. */
const span = (i: number, promptChars: number) => ({
  traceId: "5b8efff798038103d269b633813fc60c",
  spanId: (i + 1).toString(16).padStart(16, "0"),
  name: "chat gpt-4o",
  kind: 3,
  startTimeUnixNano: String(1_772_359_200_000_000_000n + BigInt(i)),
  endTimeUnixNano: String(1_772_359_200_500_000_000n + BigInt(i)),
  attributes: [
    kv("gen_ai.operation.name", "chat"),
    kv("gen_ai.request.model", "gpt-4o"),
    { key: "gen_ai.usage.input_tokens", value: { intValue: "1200" } },
    kv("gen_ai.system_instructions", JSON.stringify([{ type: "text", content: prose(promptChars) }])),
    kv("gen_ai.input.messages", JSON.stringify([text("user", prose(200))])),
    kv("gen_ai.output.messages", JSON.stringify([text("assistant", prose(400))])),
  ],
});
const body = (spans: number, promptChars: number) =>
  new TextEncoder().encode(JSON.stringify({ resourceSpans: [{ resource: { attributes: [kv("service.name", "bench")] }, scopeSpans: [{ scope: { name: "bench" }, spans: Array.from({ length: spans }, (_, i) => span(i, promptChars)) }] }] }));

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function timed(f: () => Promise<unknown>) {
  const h = monitorEventLoopDelay({ resolution: 1 });
  h.enable();
  // A timer keeps the loop turning so that a blocked stretch shows as delay.
  const iv = setInterval(() => {}, 1);
  const t = performance.now();
  await f();
  const ms = performance.now() - t;
  await new Promise((r) => setTimeout(r, 5));
  clearInterval(iv);
  h.disable();
  return { ms, blocked: h.max / 1e6 };
}

const limits = { maxHeapMb: 512, maxMs: 60_000, maxDepth: 1000 };
const cases: [string, Uint8Array][] = [
  ["1 span, 2 KB prompt", body(1, 2_000)],
  ["10 spans, 2 KB prompt", body(10, 2_000)],
  ["64 spans, 2 KB prompt", body(64, 2_000)],
  ["64 spans, 16 KB prompt", body(64, 16_000)],
  ["256 spans, 16 KB prompt", body(256, 16_000)],
  ["512 spans, 16 KB prompt", body(512, 16_000)],
  ["1 536 spans, 16 KB prompt", body(1536, 16_000)],
  ["3 584 spans, 16 KB prompt", body(3584, 16_000)],
];
console.log(`OTLP/JSON parse, inline vs worker, median of ${RUNS} (load ${(await import("node:os")).loadavg()[0].toFixed(1)})`);
console.log("body | bytes | inline ms (blocked) | worker ms (blocked)");
for (const [label, bytes] of cases) {
  const inline: { ms: number; blocked: number }[] = [];
  const worker: { ms: number; blocked: number }[] = [];
  for (let r = 0; r < RUNS; r++) {
    const t = performance.now();
    JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
    const ms = performance.now() - t;
    inline.push({ ms, blocked: ms });
    worker.push(await timed(() => parseJsonOffThread({ bytes: new Uint8Array(bytes) }, { ...limits, fatalUtf8: true })));
  }
  const f = (xs: { ms: number; blocked: number }[]) => `${median(xs.map((x) => x.ms)).toFixed(1)} (${median(xs.map((x) => x.blocked)).toFixed(1)})`;
  console.log(`${label} | ${(bytes.length / 1e6).toFixed(2)} MB | ${f(inline)} | ${f(worker)}`);
}
