// node --liftoff-only --import tsx --conditions=react-server bench/diag/memory-md-apply.ts <empty data folder>
//
// The MEMORY.md apply of tests/api/memory-curation.test.ts's bulk-limit case, in-process on the
// embedded database (no HTTP): 1 001 new bullets for a new user, twice (the second on a database
// that already holds the first). Prints wall and CPU time of each apply (docs/benchmarks.md 18).
import { openDatabase } from "../../lib/db/open-database";
import { DEFAULT_PROJECT_ID, projectSql } from "../../lib/db/project-sql";
import { applyMemoryMd } from "../../lib/memories/memory-markdown";

const dir = process.argv[2];
if (!dir) throw new Error("usage: memory-md-apply.ts <empty data folder>");
const db = await openDatabase({ kind: "pglite", dataDir: dir });
const sql = projectSql(db.sql, DEFAULT_PROJECT_ID);
for (const [user, n] of [["warm-up", 20], ["user-1", 1001], ["user-2", 1001]] as const) {
  const lines = Array.from({ length: n }, (_, i) => `- Bulk limit fact number ${i}`).join("\n");
  const t = performance.now();
  const c0 = process.cpuUsage();
  const r = await applyMemoryMd(sql, `${user}-${Date.now()}`, { file: "memory", text: `# Memory\n\n## Facts\n\n${lines}\n` });
  const c = process.cpuUsage(c0);
  console.log(`${user}: ${r.added.length} added in ${Math.round(performance.now() - t)} ms wall, ${Math.round((c.user + c.system) / 1000)} ms CPU`);
}
await db.close();
