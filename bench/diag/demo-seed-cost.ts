// What one load of the demo data into a project costs (lib/demo/seed-if-empty.ts, the code of
// POST /project/demo and of the start-up seed): CPU-seconds of this process (its token-counting
// worker threads included) and wall time, for three projects of one embedded database in a row.
// The second load follows the first at once; the third after the counting pool has ended (it
// ends 10 s after its last batch), as on a shared test server where files seed minutes apart.
//   npx tsx --conditions=react-server bench/diag/demo-seed-cost.ts
import os from "node:os";
import { openDatabase } from "../../lib/db/open-database";
import { seedDemo } from "../../lib/demo/seed-if-empty";
import { makeTempDir, removeDir, runMain } from "../lib/common";

runMain("demo-seed-cost", async (cleanup) => {
  const dir = makeTempDir("memscope-demo-seed-cost-");
  cleanup(() => removeDir(dir));
  const db = await openDatabase({ kind: "pglite", dataDir: dir });
  cleanup(() => db.close());
  for (const [project, pauseMs] of [["a", 0], ["b", 0], ["c", 12_000]] as const) {
    if (pauseMs) await new Promise((r) => setTimeout(r, pauseMs));
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const seeded = await seedDemo(db, `demo-cost-${project}`, { ifEmpty: true });
    const cpu = process.cpuUsage(cpu0);
    console.log(
      `project ${project}${pauseMs ? ` (after ${pauseMs / 1000} s idle)` : ""}: ${seeded.conversations} conversations, ${seeded.turns} turns, ${seeded.memories} memories; ` +
        `CPU ${((cpu.user + cpu.system) / 1e6).toFixed(2)} s, wall ${((performance.now() - t0) / 1000).toFixed(2)} s; load average ${os.loadavg().map((l) => l.toFixed(1)).join(" ")}`,
    );
  }
});
