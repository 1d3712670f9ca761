// npx tsx --conditions=react-server bench/diag/incidents-ingest-cost.ts
// What detection on ingest costs next to the write it checks, in process CPU (less load-bound than
// wall time on a shared machine): BATCHES batches of SIZE turns appended to one conversation
// (bench:import's shape), each written with insertTurns, then checked as the messages API queues it
// (detectWrittenTurns with the batch's ids and questions; UNFILTERED=1: detectConversations with
// the ids alone, every turn read, as before section 56). Prints CPU seconds of both and the ratio, the ratio
// without the first batch (the process's warm-up: module loads, the tokenizer, in the write), and
// with PROFILE=1 the functions that took detect's samples (V8's sampling profiler, detect only),
// and detect's CPU split: each statement (its first words) and the JSON it parses, the rest
// being the rules and the glue.
import { randomUUID } from "node:crypto";
import { Session } from "node:inspector/promises";
import os from "node:os";
import { openDatabase } from "../../lib/db/open-database";
import { projectSql } from "../../lib/db/project-sql";
import { DetectRun, detectConversations } from "../../lib/incidents/detect";
import { detectWrittenTurns } from "../../lib/incidents/ingest-filter";
import { insertTurns } from "../../lib/messages/insert-turns";
import { ZTurnInput } from "../../lib/messages/schemas";
import { makeTempDir, removeDir } from "../lib/common";
import { chargeSqlAndJson, cpuSeconds } from "../lib/cpu-split";
import { makeTurnGenerator } from "../lib/text";

const BATCHES = Number(process.env.BATCHES || 6);
const SIZE = Number(process.env.SIZE || 2000);
const cpu = cpuSeconds;
(async () => {
  const dir = makeTempDir("inc-ingest-");
  const db = await openDatabase({ kind: "pglite", dataDir: dir });
  const sql = projectSql(db.sql, "default");
  // Detect's split: CPU inside each statement (PGlite runs it on this thread) and in JSON.parse.
  const split = new Map<string, number>();
  let inDetect = false;
  const add = (k: string, s: number) => inDetect && split.set(k, (split.get(k) ?? 0) + s);
  chargeSqlAndJson(sql, add, 60);
  const conversationId = randomUUID();
  await sql.query(`INSERT INTO conversations (project_id, id, app_id, end_user_id, name) VALUES ($1, $2, 'bench-import', 'bench', 'ingest cost')`, [sql.projectId, conversationId]);
  const gen = makeTurnGenerator(777);
  let write = 0;
  let detect = 0;
  const run = new DetectRun(sql);
  const session = process.env.PROFILE ? new Session() : null;
  if (session) {
    session.connect();
    await session.post("Profiler.enable");
    await session.post("Profiler.setSamplingInterval", { interval: 200 });
  }
  type Node = { id: number; callFrame: { functionName: string; url: string; lineNumber: number } };
  const self = new Map<string, number>();
  let warm = { write: 0, detect: 0 };
  for (let b = 0; b < BATCHES; b++) {
    const turns = Array.from({ length: SIZE }, () => ZTurnInput.parse(gen()));
    const c0 = cpu();
    const stored = await insertTurns(sql, conversationId, turns, { minimal: true });
    const c1 = cpu();
    if (session) await session.post("Profiler.start");
    inDetect = true;
    if (process.env.UNFILTERED) await detectConversations(sql, [conversationId], { messageIds: new Set(stored.map((s) => s.id)) }, run);
    else await detectWrittenTurns(sql, new Map([[conversationId, stored.map((s, i) => ({ id: s.id, query: turns[i].query }))]]), run);
    const c2 = cpu();
    inDetect = false;
    if (session) {
      const { profile } = (await session.post("Profiler.stop")) as unknown as { profile: { nodes: Node[]; samples: number[]; timeDeltas: number[] } };
      const byId = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
      profile.samples.forEach((id, i) => {
        const f = byId.get(id)!;
        const k = `${f.functionName || "(anon)"} ${f.url.replace(/.*\/(node_modules|lib)\//, "$1/")}:${f.lineNumber + 1}`;
        self.set(k, (self.get(k) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
      });
    }
    if (b === 0) warm = { write: c1 - c0, detect: c2 - c1 };
    write += c1 - c0;
    detect += c2 - c1;
    console.log(`batch ${b + 1}: write ${(c1 - c0).toFixed(2)} s CPU, detect ${(c2 - c1).toFixed(2)} s CPU`);
  }
  console.log(`total: write ${write.toFixed(2)} s, detect ${detect.toFixed(2)} s CPU: detection adds ${((100 * detect) / write).toFixed(1)} %`);
  if (BATCHES > 1) {
    const w = write - warm.write;
    const d = detect - warm.detect;
    console.log(`batches 2-${BATCHES} (warm): write ${w.toFixed(2)} s, detect ${d.toFixed(2)} s CPU: detection adds ${((100 * d) / w).toFixed(1)} %; load ${os.loadavg().map((l) => l.toFixed(2)).join(" ")}`);
  }
  console.log(`detect's split (CPU, all batches; the rest is the rules and glue):`);
  for (const [k, v] of [...split].sort((a, b) => b[1] - a[1])) console.log(`  ${(v * 1000).toFixed(0).padStart(6)} ms  ${k}`);
  console.log(`  ${((detect - [...split.values()].reduce((a, b) => a + b, 0)) * 1000).toFixed(0).padStart(6)} ms  the rest`);
  for (const [k, v] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log(`  ${v.toFixed(0).padStart(6)} ms  ${k}`);
  await db.close();
  removeDir(dir);
})();
