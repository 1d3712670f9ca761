import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, type Database } from "@/lib/db/open-database";
import { projectSql, type ProjectSql } from "@/lib/db/project-sql";
import { detectConversations } from "@/lib/incidents/detect";
import { getScan, startScan, turnBatches } from "@/lib/incidents/scan-job";
import { INCIDENT_SET, loadScenarios, scoreFindings, type Found } from "../helpers/incident-set";
import { freshDataDir } from "../helpers/fresh-data-dir";
import { removeDir } from "../helpers/temp-dir";

// The rules of issue 38 over the labelled set, through the real (embedded) database: every
// labelled incident is found with the evidence that fired it, and no clean turn raises one.

let dir: string;
let db: Database;
let sql: ProjectSql;

beforeAll(async () => {
  dir = await freshDataDir();
  db = await openDatabase({ kind: "pglite", dataDir: dir });
  sql = projectSql(db.sql, "incident-rules");
}, 120_000);
afterAll(async () => {
  await db?.close();
  if (dir) removeDir(dir);
});

const stored = (s: ProjectSql) =>
  s.query<Found & { evidence: Record<string, unknown>; severity: string; memory_ids: string[] }>(
    `SELECT kind, message_id, subject, conversation_id, evidence, severity, memory_ids FROM incidents WHERE project_id = $1`,
    [s.projectId],
  );

describe("incident rules on the labelled set", () => {
  it("finds every labelled incident and none on clean turns", async () => {
    const loaded = await loadScenarios(sql, INCIDENT_SET, { suffix: "a" });
    const r = await detectConversations(sql, loaded.map((l) => l.conversationId));
    expect(r.turns).toBe(INCIDENT_SET.reduce((n, s) => n + s.turns.length, 0));
    const found = await stored(sql);
    const score = scoreFindings(loaded, found);
    expect(score.falsePositives.map((f) => `${f.kind} ${loaded.find((l) => l.conversationId === f.conversation_id)?.scenario.name}`)).toEqual([]);
    expect(score.missed).toEqual([]);
    expect(score.onClean).toBe(0);
    for (const m of score.metrics) expect(m.tp, m.kind).toBeGreaterThanOrEqual(4);
  });
});

describe("the backfill scan job", () => {
  it("cuts a page of conversations into batches by turns, in order, a long conversation alone", () => {
    const page = [
      { id: "a", turns: 150 },
      { id: "b", turns: "40" },
      { id: "c", turns: 30 },
      { id: "d", turns: 900 },
      { id: "e", turns: 1 },
    ];
    const ids = (batches: { id: string }[][]) => batches.map((b) => b.map((c) => c.id));
    expect(ids(turnBatches(page, 200))).toEqual([["a", "b"], ["c"], ["d"], ["e"]]);
    expect(ids(turnBatches(page, 10_000))).toEqual([["a", "b", "c", "d", "e"]]);
  });

  it("walks every conversation in turn-sized batches and stores the labelled incidents, no others", async () => {
    const scanSql = projectSql(db.sql, "incident-scan");
    const loaded = await loadScenarios(scanSql, INCIDENT_SET, { suffix: "s" });
    // Embedded batches are 200 turns: the set's 48 conversations take more than one.
    const job = await startScan(scanSql, {}, { embedded: true });
    let s = await getScan(scanSql, job.id);
    for (let i = 0; s.status === "running" && i < 600; i++) {
      await new Promise((r) => setTimeout(r, 50));
      s = await getScan(scanSql, job.id);
    }
    expect(s.status).toBe("done");
    expect(s.conversations_done).toBe(INCIDENT_SET.length);
    expect(s.turns_scanned).toBe(INCIDENT_SET.reduce((n, x) => n + x.turns.length, 0));
    const score = scoreFindings(loaded, await stored(scanSql));
    expect(score.missed).toEqual([]);
    expect(score.falsePositives).toEqual([]);
    expect(s.incidents_found).toBe(INCIDENT_SET.reduce((n, x) => n + x.expect.length, 0));
  }, 120_000);
});
