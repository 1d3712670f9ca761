// What the rules find in the seeded demo data (lib/demo): every conversation of a freshly
// seeded embedded database through the detector, each incident's summary printed.
import { openDatabase } from "../../lib/db/open-database";
import { DEFAULT_PROJECT_ID, projectSql } from "../../lib/db/project-sql";
import { seedDemo } from "../../lib/demo/seed-if-empty";
import { detectConversations } from "../../lib/incidents/detect";
import { makeTempDir, removeDir, runMain } from "../lib/common";

runMain("incidents-demo", async (cleanup) => {
  const dir = makeTempDir("memscope-incidents-demo-");
  cleanup(() => removeDir(dir));
  const db = await openDatabase({ kind: "pglite", dataDir: dir });
  cleanup(() => db.close());
  await seedDemo(db, DEFAULT_PROJECT_ID);
  const sql = projectSql(db.sql, "default");
  const ids = (await sql.query<{ id: string }>(`SELECT id FROM conversations WHERE project_id = 'default'`)).map((r) => r.id);
  const r = await detectConversations(sql, ids);
  console.log(`${ids.length} conversations, ${r.turns} turns, ${r.found} incidents`);
  const q = new Map((await sql.query<{ id: string; query: string }>(`SELECT id, left(query, 80) AS query FROM messages WHERE project_id = 'default'`)).map((m) => [m.id, m.query]));
  for (const f of r.findings) console.log(`- ${f.kind} (${f.severity}): ${f.summary}\n    turn: ${q.get(f.messageId)}`);
});
