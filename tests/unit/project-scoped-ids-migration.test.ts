import { randomUUID } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { openDatabase } from "@/lib/db/open-database";
import { applyMigrations, readMigrations } from "@/lib/db/migrations";
import { emptyClusterDir } from "../helpers/fresh-data-dir";
import { LOADED_MACHINE_TIMEOUT_MS } from "../helpers/loaded-machine";
import { suiteTempDirs } from "../helpers/temp-dir";

// Migration 20261125000000_project_scoped_ids on a database with data in two projects, as the
// code before it wrote them: rows keep their ids and projects (a message whose project_id
// disagreed with its conversation's moves to the conversation's), keys lead with project_id,
// and a row can then only point at a row of its own project.

const MIGRATION = "20261125000000_project_scoped_ids";
const fresh = suiteTempDirs(afterAll);

// A copy of a folder after initdb (no migration): the migrations before this one and this one
// are the subject, and initdb from nothing took this test past its time-out at load 20-37.
describe(`migration ${MIGRATION}`, { timeout: LOADED_MACHINE_TIMEOUT_MS }, () => {
  it("keeps existing rows valid, makes ids unique per project and references stay within a project", async () => {
    const dataDir = await emptyClusterDir(fresh("scoped-ids"));
    const all = readMigrations();
    expect(all.map((m) => m.name)).toContain(MIGRATION);
    const db = await openDatabase({ kind: "pglite", dataDir }, { migrate: false });
    try {
      await applyMigrations(db.sql, all.filter((m) => m.name < MIGRATION));
      await db.sql.query(`INSERT INTO projects (id, name, slug, created_at) VALUES ('p2', 'P2', 'p2', now())`);
      const [cA, cB] = [randomUUID(), randomUUID()];
      const [m1, m2, m3] = [randomUUID(), randomUUID(), randomUUID()];
      await db.sql.query(`INSERT INTO conversations (id, project_id, app_id) VALUES ($1, 'default', 'app'), ($2, 'p2', 'app')`, [cA, cB]);
      await db.sql.query(
        `INSERT INTO messages (id, project_id, conversation_id, parent_message_id, tree_parent_id, query) VALUES
           ($1, 'default', $4, NULL, NULL, 'a1'), ($2, 'default', $4, $1, $1, 'a2'),
           -- written with the wrong project: the migration moves it to its conversation's
           ($3, 'default', $5, NULL, NULL, 'b1')`,
        [m1, m2, m3, cA, cB],
      );
      await db.sql.query(`INSERT INTO message_files (id, project_id, message_id, transfer_method, url) VALUES (gen_random_uuid(), 'default', $1, 'remote_url', 'http://x/1.png')`, [m3]);
      await db.sql.query(`INSERT INTO node_memories (project_id, conversation_id, node_id, app_id, document) VALUES ('p2', $1, 'n', 'app', '{"version":1,"messages":[]}')`, [cB]);
      const before = await db.sql.query(`SELECT id, conversation_id, parent_message_id, tree_parent_id, query FROM messages ORDER BY query`);

      const result = await applyMigrations(db.sql, all);
      expect(result.applied).toContain(MIGRATION);

      expect(await db.sql.query(`SELECT id, conversation_id, parent_message_id, tree_parent_id, query FROM messages ORDER BY query`)).toEqual(before);
      expect(await db.sql.query(`SELECT query, project_id FROM messages ORDER BY query`)).toEqual([
        { query: "a1", project_id: "default" },
        { query: "a2", project_id: "default" },
        { query: "b1", project_id: "p2" },
      ]);
      expect(await db.sql.query(`SELECT project_id FROM message_files`)).toEqual([{ project_id: "p2" }]);

      const keys = await db.sql.query<{ table: string; def: string }>(
        `SELECT conrelid::regclass::text AS table, pg_get_constraintdef(oid) AS def FROM pg_constraint
          WHERE conrelid::regclass::text IN ('conversations', 'messages', 'message_files', 'node_memories') AND contype IN ('p', 'f')
          ORDER BY 1, 2`,
      );
      expect(keys).toEqual([
        { table: "conversations", def: "PRIMARY KEY (project_id, id)" },
        { table: "message_files", def: "FOREIGN KEY (project_id, message_id) REFERENCES messages(project_id, id) ON UPDATE CASCADE ON DELETE RESTRICT" },
        { table: "message_files", def: "PRIMARY KEY (project_id, id)" },
        { table: "messages", def: "FOREIGN KEY (project_id, conversation_id) REFERENCES conversations(project_id, id) ON UPDATE CASCADE ON DELETE RESTRICT" },
        { table: "messages", def: "PRIMARY KEY (project_id, id)" },
        { table: "node_memories", def: "FOREIGN KEY (project_id, conversation_id) REFERENCES conversations(project_id, id) ON UPDATE CASCADE ON DELETE CASCADE" },
        { table: "node_memories", def: "PRIMARY KEY (project_id, conversation_id, node_id)" },
      ]);

      // The same conversation and message ids in another project: allowed, and apart.
      await db.sql.query(`INSERT INTO conversations (id, project_id, app_id) VALUES ($1, 'p2', 'other')`, [cA]);
      await db.sql.query(`INSERT INTO messages (id, project_id, conversation_id, query) VALUES ($1, 'p2', $2, 'p2 copy')`, [m1, cA]);
      await db.sql.query(`INSERT INTO node_memories (project_id, conversation_id, node_id, app_id, document) VALUES ('default', $1, 'n', 'app', '{"version":1,"messages":[]}')`, [cA]);
      // Still unique within a project.
      await expect(db.sql.query(`INSERT INTO conversations (id, project_id, app_id) VALUES ($1, 'default', 'again')`, [cA])).rejects.toThrow(/duplicate key/);
      await expect(db.sql.query(`INSERT INTO messages (id, project_id, conversation_id) VALUES ($1, 'default', $2)`, [m1, cA])).rejects.toThrow(/duplicate key/);
      // A message cannot belong to a conversation of another project, nor a file to a message of one.
      await expect(db.sql.query(`INSERT INTO messages (id, project_id, conversation_id) VALUES ($1, 'default', $2)`, [randomUUID(), cB])).rejects.toThrow(/foreign key/);
      await expect(
        db.sql.query(`INSERT INTO message_files (id, project_id, message_id, transfer_method) VALUES (gen_random_uuid(), 'default', $1, 'remote_url')`, [m3]),
      ).rejects.toThrow(/foreign key/);

      // The thread read uses the index led by (project_id, conversation_id).
      await db.sql.exec("SET enable_seqscan = off");
      const plan = await db.sql.query<{ "QUERY PLAN": string }>(
        `EXPLAIN SELECT id FROM messages WHERE project_id = 'default' AND conversation_id = '${cA}' ORDER BY created_at DESC, seq DESC LIMIT 500`,
      );
      expect(plan.map((r) => r["QUERY PLAN"]).join("\n")).toContain("messages_project_id_conversation_id_created_at_seq_idx");
    } finally {
      await db.close();
    }
  });
});
