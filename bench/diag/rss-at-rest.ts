// npx tsx --conditions=react-server bench/diag/rss-at-rest.ts — what a server holds at rest after a
// fresh seeded start (bench:load's "RSS at rest" figure, issue 21 part 8): VmRSS after IDLE_S
// seconds, split by /proc/<pid>/smaps_rollup (anonymous vs file-backed), and, with HEAP=1, a heap
// snapshot written by the server itself (--heapsnapshot-signal) for the largest retainers.
// BENCH_DATABASES: embedded (default) and/or postgres (MEMSCOPE_TEST_POSTGRES_URL or DATABASE_URL server).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { freshPostgres, rssMiB, startServer } from "../lib/serve-process";

const IDLE_S = Number(process.env.BENCH_IDLE_S || 30);
const kinds = (process.env.BENCH_DATABASES || "embedded").split(",");

function rollup(pid: number): string {
  const t = fs.readFileSync(`/proc/${pid}/smaps_rollup`, "utf8");
  const kb = (k: string) => Number(new RegExp(`^${k}:\\s+(\\d+) kB`, "m").exec(t)?.[1] ?? 0) / 1024;
  return `Rss ${kb("Rss").toFixed(0)} MiB: anonymous ${kb("Anonymous").toFixed(0)}, file-backed ${(kb("Rss") - kb("Anonymous")).toFixed(0)}`;
}

for (const kind of kinds) {
  const pgServer = process.env.MEMSCOPE_TEST_POSTGRES_URL;
  const pg = kind === "postgres" ? await freshPostgres(pgServer!) : null;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "memscope-rss-at-rest-"));
  const server = await startServer({ MEMSCOPE_SEED: "1", ...(pg ? { DATABASE_URL: pg.url } : { MEMSCOPE_DATA_DIR: dir }) }, process.env.HEAP ? ["--heapsnapshot-signal=SIGUSR2"] : []);
  try {
    await new Promise((r) => setTimeout(r, IDLE_S * 1000));
    console.log(`${kind}: RSS at rest after a fresh seeded start (${IDLE_S} s idle): ${rssMiB(server.pid).toFixed(0)} MiB (${rollup(server.pid)})`);
    if (process.env.HEAP) {
      process.kill(server.pid, "SIGUSR2");
      await new Promise((r) => setTimeout(r, 20_000));
      console.log("heap snapshot written in the server's folder (Heap.*.heapsnapshot)");
    }
  } finally {
    await server.stop();
    await pg?.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
