// node bench/diag/import-token-pool-memory.mjs <two|one|two-young8|one-young8>  (from the repo root)
//
// What the token workers hold while an import streams batches through them: counts 8 batches
// of 8 000 texts (a ChatGPT bench batch's questions and answers) in both encodings and prints
// this process's RSS after and at its peak. Modes: "two" = one worker per encoding (each holds
// one encoder, lib/tokens/count-tokens-parallel.ts), "one" = one worker holding both;
// "-young8" caps each worker's young generation at 8 MB (YOUNG_MB overrides), as the pool does.
// Figures on the 2-core machine (load ~8): two +306 MB, one +200 MB, two-young8 +203 MB peak
// +260 MB, at the same time per batch (noise larger than any difference).
import { Piscina } from "piscina";

const mode = process.argv[2] ?? "two-young8";
const file = `${process.cwd()}/lib/tokens/token-worker.mjs`;
const W = "the a train ticket museum coffee recipe budget weekend garden python error deploy meeting summary invoice river bicycle mountain winter schedule".split(" ");
let seed = 1;
const rnd = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
const words = (n) => Array.from({ length: n }, () => W[Math.floor(rnd() * W.length)]).join(" ");
const limits = mode.includes("young") ? { resourceLimits: { maxYoungGenerationSizeMb: Number(process.env.YOUNG_MB || 8) } } : {};
const pool = (encoding) => new Piscina({ filename: file, maxThreads: 1, ...(encoding ? { workerData: { encoding } } : {}), ...limits });
const shared = mode.startsWith("one") ? pool(null) : null;
const pools = { o200k_base: shared ?? pool("o200k_base"), cl100k_base: shared ?? pool("cl100k_base") };
const mb = (b) => (b / 1048576).toFixed(0);
const start = process.memoryUsage().rss;
let peak = 0;
const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
const t0 = performance.now();
for (let b = 0; b < 8; b++) {
  const texts = Array.from({ length: 8000 }, (_, i) => (i % 2 ? words(120) : `${words(30)}?`));
  await Promise.all(Object.entries(pools).map(([encoding, p]) => p.run({ texts, encoding, boundMs: 1e6 })));
}
clearInterval(timer);
const rss = process.memoryUsage().rss;
console.log(`${mode}: RSS +${mb(rss - start)} MB after, +${mb(peak - start)} MB at peak; ${((performance.now() - t0) / 8).toFixed(0)} ms a batch`);
process.exit(0);
