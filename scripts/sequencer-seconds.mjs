// Prints the rows of tests/support/sequencer.ts's SECONDS table (files of 10 s and more, longest
// first) from a full npm test run's per-file timings: `node scripts/sequencer-seconds.mjs DIR`,
// DIR being the temporary folder npm test names at its end ("JSON report written to DIR/...").
import fs from "node:fs";
import path from "node:path";

const dir = process.argv[2];
if (!dir) {
  console.error("usage: node scripts/sequencer-seconds.mjs <npm test's memscope-vitest-* folder>");
  process.exit(2);
}
const files = fs
  .readdirSync(dir)
  .filter((f) => /^timings-.*\.json$/.test(f))
  .flatMap((f) => JSON.parse(fs.readFileSync(path.join(dir, f), "utf8")).files);
files.sort((a, b) => b.wall_s - a.wall_s);
for (const f of files.filter((f) => f.wall_s >= 10)) console.log(`  "${f.file}": ${Math.round(f.wall_s)},`);
