import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertTurns } from "@/lib/messages/insert-turns";
import { ZTurnInput } from "@/lib/messages/schemas";
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
    expect(turnBatches(page, 200)).toEqual([["a", "b"], ["c"], ["d"], ["e"]]);
    expect(turnBatches(page, 10_000)).toEqual([["a", "b", "c", "d", "e"]]);
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

describe("checking given turns (detection on ingest)", () => {
  it("reads back far enough for a reference 450 turns back, as a full check does", async () => {
    const s = projectSql(db.sql, "incident-ingest-bound");
    const conversationId = randomUUID();
    await s.query(`INSERT INTO conversations (project_id, id, app_id, end_user_id, name) VALUES ($1, $2, 'bound', 'bound-user', 'long')`, [s.projectId, conversationId]);
    const base = Date.parse("2026-09-01T08:00:00Z");
    const texts = new Map<number, string>([
      [150, "My cat is called Miso and she is a tabby."],
      [600, "Remember the cat I mentioned? What is a good toy for a tabby?"],
    ]);
    const ids: string[] = [];
    let parent: string | null = null;
    const turns = Array.from({ length: 601 }, (_, k) => {
      const n = k + 1;
      const id = randomUUID();
      ids[n] = id;
      const t = ZTurnInput.parse({ id, parent_message_id: parent, query: texts.get(n) ?? `Question number ${n} about the weather?`, answer: `Answer ${n}.`, created_at: new Date(base + n * 60_000).toISOString() });
      parent = id;
      return t;
    });
    await insertTurns(s, conversationId, turns, { minimal: true });
    // Ingest checks the new turns only and reads the 500 turns before the earliest of them
    // (the rules walk a thread no further back); turn 150 is within reach of turn 600.
    const r = await detectConversations(s, [conversationId], { messageIds: new Set([ids[600], ids[601]]) });
    expect(r.turns).toBe(2);
    const refs = (f: { kind: string; messageId: string; subject: string }[]) => f.filter((x) => x.kind === "dropped_reference").map((x) => [x.messageId, x.subject]);
    expect(refs(r.findings)).toEqual([[ids[600], ids[150]]]);
    const full = await detectConversations(s, [conversationId], { since: new Date(base + 600 * 60_000) });
    expect(refs(full.findings)).toEqual(refs(r.findings));
  }, 120_000);
});
