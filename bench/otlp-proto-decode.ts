// npm run bench:otlp-proto — issue 37 item 2: an OTLP protobuf body decoded on the request thread
// (otlp-proto.ts, inline) or in a worker (lib/capture/otlp-proto-off-thread.ts), by body size and
// by the number of messages it holds. In process, no server. Per body, median of BENCH_RUNS: the
// inline decode's time (all of it blocks the thread) and the messages it opens, and the worker's
// time to the decoded value with the longest stretch the calling thread was blocked meanwhile
// (the event-loop delay's max under a 1 ms timer). OTLP_PROTO_WORKER_FROM_BYTES and
// PROTO_INLINE_MESSAGES (lib/capture/read-otlp-body.ts) are set from these figures
// (docs/benchmarks.md section 35). Run with tsx, the worker loads its TypeScript through tsx
// (otlp-proto-worker-tsx.mjs), so its start is slower here than in a built server.
import { isDeepStrictEqual } from "node:util";
import { monitorEventLoopDelay } from "node:perf_hooks";
import os from "node:os";
import { decodeTracesProto, MessageBudgetExceeded, withMessageBudget } from "../lib/capture/otlp-proto";
import { decodeProtoOffThread } from "../lib/capture/otlp-proto-off-thread";
import { MAX_OTLP_PROTO_MESSAGES, MAX_OTLP_VALUES_PER_SPAN } from "../lib/capture/read-otlp-body";
import { chatBatch, emptyValuesSpan, manyKeysSpan } from "../tests/helpers/otlp-protobuf";

const RUNS = Number(process.env.BENCH_RUNS || 3);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Messages the inline decode opens (Infinity budget, counted by stepping the budget up). */
function messages(b: Uint8Array): number {
  let lo = 0;
  let hi = 1;
  const fits = (n: number) => {
    try {
      withMessageBudget(n, () => decodeTracesProto(b));
      return true;
    } catch (e) {
      if (e instanceof MessageBudgetExceeded) return false;
      throw e;
    }
  };
  while (!fits(hi)) {
    lo = hi;
    hi *= 2;
    if (hi > 64_000_000) return Infinity;
  }
  while (hi - lo > Math.max(1, hi / 100)) {
    const mid = Math.floor((lo + hi) / 2);
    if (fits(mid)) hi = mid;
    else lo = mid;
  }
  return hi;
}

async function timed<T>(f: () => Promise<T>) {
  const h = monitorEventLoopDelay({ resolution: 1 });
  h.enable();
  const iv = setInterval(() => {}, 1);
  const t = performance.now();
  let value: T | Error;
  try {
    value = await f();
  } catch (e) {
    value = e as Error;
  }
  const ms = performance.now() - t;
  await new Promise((r) => setTimeout(r, 5));
  clearInterval(iv);
  h.disable();
  return { ms, blocked: h.max / 1e6, value };
}

const limits = { maxHeapMb: 512, maxMs: 60_000, maxMessages: MAX_OTLP_PROTO_MESSAGES, maxItemWeight: MAX_OTLP_VALUES_PER_SPAN };
const cases: [string, Uint8Array][] = [
  ["64 chat spans, 16 KB prompt", chatBatch({ spans: 64, promptChars: 16_000, conversation: "c" })],
  ["512 chat spans, 16 KB prompt (the SDKs' default batch)", chatBatch({ spans: 512, promptChars: 16_000, conversation: "c" })],
  ["1 100 chat spans, 16 KB prompt", chatBatch({ spans: 1100, promptChars: 16_000, conversation: "c" })],
  ["3 584 chat spans, 16 KB prompt", chatBatch({ spans: 3584, promptChars: 16_000, conversation: "c" })],
  ["2 500 chat spans, 1 KB prompt", chatBatch({ spans: 2500, promptChars: 1_000, conversation: "c" })],
  ["10 000 chat spans, 1 KB prompt", chatBatch({ spans: 10_000, promptChars: 1_000, conversation: "c" })],
  ["hostile: 30 000 empty values in a span", emptyValuesSpan(30_000)],
  ["hostile: 500 000 empty values in a span", emptyValuesSpan(500_000)],
  ["hostile: 8 M empty values in a span", emptyValuesSpan(8_000_000)],
  ["hostile: 100 000 kvlist keys in a span", manyKeysSpan(100_000)],
];

console.log(`OTLP protobuf decode, inline vs worker, median of ${RUNS} (load ${os.loadavg()[0].toFixed(1)}, ${os.availableParallelism()} cores)`);
console.log("body | MB | messages | inline ms (= blocked) | worker ms | worker: longest block ms | worker answer");
for (const [label, bytes] of cases) {
  const n = messages(bytes);
  const inline: number[] = [];
  const worker: { ms: number; blocked: number }[] = [];
  let answer = "";
  let reference: unknown;
  for (let r = 0; r < RUNS; r++) {
    const t = performance.now();
    reference = decodeTracesProto(bytes);
    inline.push(performance.now() - t);
    const w = await timed(() => decodeProtoOffThread(new Uint8Array(bytes), "traces", limits));
    worker.push(w);
    answer = w.value instanceof Error ? `refused: ${w.value.message}` : isDeepStrictEqual(w.value, reference) ? "same value as inline" : "DIFFERENT from inline";
  }
  const f = (x: number) => x.toFixed(0);
  console.log(`${label} | ${(bytes.length / 1048576).toFixed(1)} | ${n} | ${f(median(inline))} | ${f(median(worker.map((w) => w.ms)))} | ${f(median(worker.map((w) => w.blocked)))} | ${answer}`);
}
