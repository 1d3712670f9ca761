import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, type Database } from "@/lib/db/open-database";
import { DEFAULT_PROJECT_ID, projectSql } from "@/lib/db/project-sql";
import { DEMO_IDS } from "@/lib/demo/demo-data";
import { seedDemo } from "@/lib/demo/seed-if-empty";
import { detectConversations } from "@/lib/incidents/detect";
import { INCIDENT_KINDS } from "@/lib/incidents/schemas";
import { freshDataDir } from "../helpers/fresh-data-dir";
import { removeDir } from "../helpers/temp-dir";

// The demo's inbox is what the rules find in the seeded data (issue 38): every conversation of a
// freshly seeded database through the detector yields one incident of each kind, all on the ops
// assistant's day, and nothing on the other 700 demo turns.

let dir: string;
let db: Database;

beforeAll(async () => {
  dir = await freshDataDir();
  db = await openDatabase({ kind: "pglite", dataDir: dir });
  await seedDemo(db, DEFAULT_PROJECT_ID);
}, 240_000);
afterAll(async () => {
  await db?.close();
  if (dir) removeDir(dir);
});

describe("incidents in the demo data", () => {
  it("a freshly seeded database already holds the ops assistant's incidents (the inbox is not empty)", async () => {
    const sql = projectSql(db.sql, DEFAULT_PROJECT_ID);
    const rows = await sql.query<{ kind: string; conversation_id: string }>(`SELECT kind, conversation_id FROM incidents WHERE project_id = $1 ORDER BY kind`, [sql.projectId]);
    expect(rows.map((x) => x.kind)).toEqual([...INCIDENT_KINDS].sort());
    expect(new Set(rows.map((x) => x.conversation_id))).toEqual(new Set([DEMO_IDS.incidents]));
  });

  it("finds one incident of each kind, on the ops assistant's conversation only", async () => {
    const sql = projectSql(db.sql, DEFAULT_PROJECT_ID);
    // Start from nothing so the detector's own run over every conversation is what is counted.
    await sql.query(`DELETE FROM incidents WHERE project_id = $1`, [sql.projectId]);
    const ids = (await sql.query<{ id: string }>(`SELECT id FROM conversations WHERE project_id = $1`, [sql.projectId])).map((r) => r.id);
    const r = await detectConversations(sql, ids);
    expect(r.turns).toBeGreaterThan(700);
    const rows = await sql.query<{ kind: string; conversation_id: string; memory_ids: string[] }>(`SELECT kind, conversation_id, memory_ids FROM incidents WHERE project_id = $1 ORDER BY kind`, [sql.projectId]);
    expect(rows.map((x) => x.kind)).toEqual([...INCIDENT_KINDS].sort());
    expect(new Set(rows.map((x) => x.conversation_id))).toEqual(new Set([DEMO_IDS.incidents]));
    const mem = await sql.query<{ id: string; content: string }>(`SELECT id, content FROM memories WHERE project_id = $1`, [sql.projectId]);
    const named = (kind: string) => rows.find((x) => x.kind === kind)!.memory_ids.map((m) => mem.find((x) => x.id === m)?.content);
    expect(named("missed_memory")).toEqual(["Timezone is Europe/Berlin"]);
    expect(named("restated_memory")).toEqual(["Workspace exports are about 120 thousand rows"]);
    expect(named("stale_memory")).toEqual(["Prefers Parquet over CSV for exports"]);
  }, 240_000);
});
