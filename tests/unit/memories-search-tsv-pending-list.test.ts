import { afterAll, describe, expect, it } from "vitest";
import { openDatabase, type Database } from "@/lib/db/open-database";
import { createFreshDatabase, realPostgresUrl } from "../helpers/real-postgres";
import { freshDataDir } from "../helpers/fresh-data-dir";

// Migration 20261126180000_memories_search_tsv_no_pending_list: the full-text index of
// memories keeps no GIN pending list. PGlite never vacuums, so rows written after the index
// waited in the list, every full-text probe read it linearly, and the planner, pricing
// that, scanned every memory of the table for a search's text candidates.

const drops: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const d of drops) await d();
});

async function open(kind: "pglite" | "postgres"): Promise<Database> {
  // The migrated template every suite copies (its migrations applied once per run).
  if (kind === "pglite") return openDatabase({ kind: "pglite", dataDir: await freshDataDir() });
  const d = await createFreshDatabase(realPostgresUrl()!);
  drops.push(d.drop);
  return openDatabase({ kind: "postgres", url: d.url });
}

const KINDS = (["pglite", ...(realPostgresUrl() ? ["postgres"] : [])] as const).map((k) => k as "pglite" | "postgres");

describe.each(KINDS)("memories_search_tsv_idx on %s", (kind) => {
  it("has no pending list: a search's text candidates among 5 000 memories go through the index", async () => {
    const db = await open(kind);
    try {
      const [{ options }] = await db.sql.query<{ options: string[] | null }>(`SELECT reloptions AS options FROM pg_class WHERE relname = 'memories_search_tsv_idx'`);
      expect(options).toContain("fastupdate=off");
      // Rows written after the index, as a user's memories are.
      await db.sql.query(
        `INSERT INTO memories (id, user_id, memory_type, content, content_key, importance_score)
         SELECT gen_random_uuid(), 'u1', 'fact', 'likes ' || md5(i::text) || ' and ' || md5((i * 7)::text), md5(i::text), 0.5
           FROM generate_series(1, 5000) AS i`,
      );
      await db.sql.exec("ANALYZE memories");
      // search-memories.ts textCandidates' pool, words that match nothing.
      const plan = await db.sql.query<{ "QUERY PLAN": string }>(
        `EXPLAIN SELECT m.id FROM memories m
          WHERE m.user_id = 'u1' AND m.project_id = 'default' AND m.status = 'active'::memory_status
            AND m.search_tsv @@ to_tsquery('simple', 'remind | flight | return') LIMIT 200`,
      );
      const text = plan.map((p) => p["QUERY PLAN"]).join("\n");
      expect(text).toContain("memories_search_tsv_idx");
      expect(text).not.toContain("Seq Scan");
    } finally {
      await db.close();
    }
  }, 120_000);
});
