import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, type Database } from "@/lib/db/open-database";
import { ANCHOR_LIST } from "@/lib/privacy/erase-anchors";
import { USER_TABLES } from "@/lib/privacy/user-tables";
import { freshDataDir } from "../helpers/fresh-data-dir";
import { removeDir } from "../helpers/temp-dir";

// Issue 24, erasure performance: each batch of a user's erasure deletes the rows hanging off
// a batch of ids, one statement per table (lib/privacy/erase-anchors.ts). Each must reach its
// rows through an index that starts with the column it names (after project_id): without
// one, the statement reads every row of the project, other users' included, once per batch.
// Checked on the catalog of the migrated embedded database (the planner's choice between
// indexes of an empty table is a tie, so a plan would not tell). A partial index counts only
// when its condition is "<column> IS NOT NULL" for the column the rows are selected by, which
// `column = value` implies (conversations' end-user index: migration 20261130070000).

let db: Database;
let dir: string;
let indexes: { table: string; columns: string[]; predicate: string | null }[];

beforeAll(async () => {
  dir = await freshDataDir();
  db = await openDatabase({ kind: "pglite", dataDir: dir });
  const rows = await db.sql.query<{ table: string; columns: string[]; predicate: string | null }>(
    `SELECT t.relname AS table, array_agg(a.attname ORDER BY k.n) AS columns, pg_get_expr(i.indpred, i.indrelid) AS predicate
       FROM pg_index i
       JOIN pg_class t ON t.oid = i.indrelid
       JOIN pg_namespace s ON s.oid = t.relnamespace AND s.nspname = current_schema()
       CROSS JOIN LATERAL unnest(i.indkey::int2[]) WITH ORDINALITY AS k(attnum, n)
       JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum
      GROUP BY i.indexrelid, i.indpred, i.indrelid, t.relname`,
  );
  indexes = rows;
}, 180_000);
afterAll(async () => {
  await db?.close();
  if (dir) removeDir(dir);
});

/** The column a delete selects its rows by: `col = ANY($2)`, or a join `h.col = r.id`. */
function keyColumn(sql: string): string {
  const m = /\b(\w+) = ANY\(\$2|h\.(\w+) = r\.id/.exec(sql);
  if (!m) throw new Error(`no key column in ${sql}`);
  return m[1] ?? m[2];
}

const hasIndex = (table: string, column: string) =>
  indexes.filter(
    (i) =>
      i.table === table &&
      (i.predicate === null || i.predicate === `(${column} IS NOT NULL)`) &&
      (i.columns[0] === column || (i.columns[0] === "project_id" && i.columns[1] === column)),
  );

describe("the erasure's anchored deletes", () => {
  const statements = ANCHOR_LIST.flatMap((a) => a.deletes.map((d) => ({ anchor: a.name, table: d.table, column: keyColumn(d.sql) })));

  it.each(statements)("$anchor: $table by $column has an index", ({ table, column }) => {
    expect(hasIndex(table, column), `indexes of ${table}: ${JSON.stringify(indexes.filter((i) => i.table === table))}`).not.toEqual([]);
  });
});

// The parts that select a table's rows by the user's id directly (`t.col = $2`): the batches
// left after the anchored steps and the final check ("no row of the user left") run them on
// every erasure, mostly finding nothing, which only an index tells without a full read.
describe("the erasure's parts by the user's id", () => {
  const parts = USER_TABLES.flatMap((u) =>
    u.parts.flatMap((p) => {
      const m = /^t\.project_id = \$1 AND t\.(\w+) = \$2$/.exec(p.trim());
      return m ? [{ table: u.table, column: m[1] }] : [];
    }),
  );

  it("are found", () => expect(parts.length).toBeGreaterThan(8));

  it.each(parts)("$table by $column has an index", ({ table, column }) => {
    expect(hasIndex(table, column), `indexes of ${table}: ${JSON.stringify(indexes.filter((i) => i.table === table))}`).not.toEqual([]);
  });
});
