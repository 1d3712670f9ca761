import { describe, expect, it } from "vitest";
import type { SqlRunner } from "@/lib/db/migrations";
import type { Database } from "@/lib/db/open-database";
import { DEFAULT_PROJECT_ID } from "@/lib/db/project-sql";
import { useEmbeddedDatabase } from "../helpers/embedded-database";
import { usePostgresDatabase } from "../helpers/postgres-database";
import { realPostgresUrl } from "../helpers/real-postgres";

// Each foreign-key check looks its referenced row up by the referenced key, with a query that
// PostgreSQL plans at a connection's first check and keeps (the same plan for every later check
// on that connection, until the table's statistics change). On a young table, with no
// statistics yet, another index beginning with the key's first column (project_id) could look
// as cheap as the key: conversations' (project_id, end_user_id) index won, and as the project
// grew each check walked all of its conversations (migration
// 20261130070000_conversation_key_lookups). Here every foreign key's lookup is planned as a
// kept (generic) plan, on the database as migrated (where a new deployment's first check plans
// it) and again with unanalyzed rows in the tables, and must use the referenced key's own index. On PostgreSQL 15 too when one is configured (CI), where the slow checks were measured.

const embedded = useEmbeddedDatabase();

type ForeignKey = { name: string; referenced: string; index: string; columns: string[]; types: string[] };

async function foreignKeys(sql: SqlRunner): Promise<ForeignKey[]> {
  return sql.query<ForeignKey>(
    `SELECT c.conname AS name, r.relname AS referenced, i.relname AS index,
            array_agg(a.attname::text ORDER BY k.n) AS columns, array_agg(format_type(a.atttypid, a.atttypmod) ORDER BY k.n) AS types
       FROM pg_constraint c
       JOIN pg_class r ON r.oid = c.confrelid
       JOIN pg_class i ON i.oid = c.conindid
       JOIN pg_namespace s ON s.oid = r.relnamespace AND s.nspname = 'public'
       CROSS JOIN LATERAL unnest(c.confkey) WITH ORDINALITY AS k(attnum, n)
       JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.attnum
      WHERE c.contype = 'f'
      GROUP BY c.conname, r.relname, i.relname
      ORDER BY c.conname`,
  );
}

/** The index the kept plan of `fk`'s check scans, or the plan's first scan node when it scans none. */
async function checkPlanIndex(sql: SqlRunner, fk: ForeignKey): Promise<string> {
  return sql.transaction(async (tx) => {
    await tx.exec(`SET LOCAL plan_cache_mode = force_generic_plan`);
    const where = fk.columns.map((c, i) => `"${c}" = $${i + 1}`).join(" AND ");
    await tx.exec(`PREPARE fk_check (${fk.types.join(", ")}) AS SELECT 1 FROM ONLY "${fk.referenced}" x WHERE ${where} FOR KEY SHARE OF x`);
    try {
      const [row] = await tx.query<{ "QUERY PLAN": unknown }>(`EXPLAIN (FORMAT JSON) EXECUTE fk_check (${fk.columns.map(() => "NULL").join(", ")})`);
      const raw = row["QUERY PLAN"];
      const plan = (typeof raw === "string" ? JSON.parse(raw) : raw) as { Plan: PlanNode }[];
      const scan = findScan(plan[0].Plan);
      return scan ? (scan["Index Name"] ?? scan["Node Type"]) : "no scan";
    } finally {
      await tx.exec(`DEALLOCATE fk_check`);
    }
  });
}

type PlanNode = { "Node Type": string; "Relation Name"?: string; "Index Name"?: string; Plans?: PlanNode[] };
function findScan(n: PlanNode): PlanNode | null {
  if (n["Relation Name"]) return n;
  for (const c of n.Plans ?? []) {
    const s = findScan(c);
    if (s) return s;
  }
  return null;
}

async function expectKeyLookups(sql: SqlRunner) {
  const fks = await foreignKeys(sql);
  expect(fks.length).toBeGreaterThan(10);
  const wrong: string[] = [];
  for (const fk of fks) {
    const used = await checkPlanIndex(sql, fk);
    if (used !== fk.index) wrong.push(`${fk.name}: ${fk.referenced}(${fk.columns.join(", ")}) looked up with ${used}, not ${fk.index}`);
  }
  expect(wrong).toEqual([]);
}

function keyLookupTests(db: () => Database) {
  it("on a freshly migrated database", async () => {
    await expectKeyLookups(db().sql);
  });

  it("on young tables holding rows they have no statistics for (an agent's first exports)", async () => {
    const sql = db().sql;
    await sql.query(
      `INSERT INTO conversations (id, project_id, app_id, end_user_id, name, created_at, updated_at)
       SELECT gen_random_uuid(), $1, 'app', CASE WHEN g % 3 = 0 THEN NULL ELSE 'user-' || (g % 40) END, 'c', now(), now() FROM generate_series(1, 300) g`,
      [DEFAULT_PROJECT_ID],
    );
    await sql.query(
      `INSERT INTO messages (id, conversation_id, project_id, query, answer)
       SELECT gen_random_uuid(), c.id, c.project_id, 'q', 'a' FROM conversations c, generate_series(1, 2)`,
    );
    // Each conversation's row updated ten times: the old versions are what a walk over the wrong index reads.
    for (let i = 0; i < 10; i++) await sql.query(`UPDATE conversations SET turn_count = turn_count + 1, updated_at = now()`);
    await expectKeyLookups(sql);
  });

  it("an erasure's lookup of a user's conversations still takes the (now partial) end-user index", async () => {
    const sql = db().sql;
    const used = await sql.transaction(async (tx) => {
      await tx.exec(`SET LOCAL plan_cache_mode = force_generic_plan`);
      await tx.exec(`PREPARE by_user (text, text) AS SELECT id FROM conversations WHERE project_id = $1 AND end_user_id = $2`);
      try {
        const [row] = await tx.query<{ "QUERY PLAN": unknown }>(`EXPLAIN (FORMAT JSON) EXECUTE by_user ('default', 'user-1')`);
        const raw = row["QUERY PLAN"];
        return JSON.stringify(typeof raw === "string" ? JSON.parse(raw) : raw);
      } finally {
        await tx.exec(`DEALLOCATE by_user`);
      }
    });
    expect(used).toContain('"Index Name":"conversations_project_id_end_user_id_idx"');
  });
}

describe("foreign-key checks find the referenced row by its key: embedded database", () => {
  keyLookupTests(() => embedded.db);
});

describe.skipIf(!realPostgresUrl())("foreign-key checks find the referenced row by its key: PostgreSQL", () => {
  const pg = usePostgresDatabase();
  keyLookupTests(() => pg.db);
});
