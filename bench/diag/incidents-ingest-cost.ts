// npx tsx --conditions=react-server bench/diag/incidents-ingest-cost.ts
// What detection on ingest costs next to the write it checks, in process CPU (less load-bound than
// wall time on a shared machine): BATCHES batches of SIZE turns appended to one conversation
// (bench:import's shape), each written with insertTurns, then checked as the messages API queues it
// (detectConversations with the batch's ids). Prints CPU seconds of both and the ratio.
import { randomUUID } from "node:crypto";
import { openDatabase } from "../../lib/db/open-database";
import { projectSql } from "../../lib/db/project-sql";
import { DetectRun, detectConversations } from "../../lib/incidents/detect";
import { insertTurns } from "../../lib/messages/insert-turns";
import { ZTurnInput } from "../../lib/messages/schemas";
import { makeTempDir, removeDir } from "../lib/common";
import { makeTurnGenerator } from "../lib/text";

const BATCHES = Number(process.env.BATCHES || 6);
const SIZE = Number(process.env.SIZE || 2000);
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};
(async () => {
  const dir = makeTempDir("inc-ingest-");
  const db = await openDatabase({ kind: "pglite", dataDir: dir });
  const sql = projectSql(db.sql, "default");
  const conversationId = randomUUID();
  await sql.query(`INSERT INTO conversations (project_id, id, app_id, end_user_id, name) VALUES ($1, $2, 'bench-import', 'bench', 'ingest cost')`, [sql.projectId, conversationId]);
  const gen = makeTurnGenerator(777);
  let write = 0;
  let detect = 0;
  const run = new DetectRun(sql);
  for (let b = 0; b < BATCHES; b++) {
    const turns = Array.from({ length: SIZE }, () => ZTurnInput.parse(gen()));
    const c0 = cpu();
    const stored = await insertTurns(sql, conversationId, turns, { minimal: true });
    const c1 = cpu();
    await detectConversations(sql, [conversationId], { messageIds: new Set(stored.map((s) => s.id)) }, run);
    const c2 = cpu();
    write += c1 - c0;
    detect += c2 - c1;
    console.log(`batch ${b + 1}: write ${(c1 - c0).toFixed(2)} s CPU, detect ${(c2 - c1).toFixed(2)} s CPU`);
  }
  console.log(`total: write ${write.toFixed(2)} s, detect ${detect.toFixed(2)} s CPU: detection adds ${((100 * detect) / write).toFixed(1)} %`);
  await db.close();
  removeDir(dir);
})();
