import { randomUUID } from "node:crypto";
import { contentKey } from "../../lib/memories/normalize-content";
import { DEFAULT_PROJECT_ID, projectSql } from "../../lib/db/project-sql";
import type { Database } from "../../lib/db/open-database";
import { DEMO_IDS } from "../../lib/demo/demo-data";
import { seedDemo } from "../../lib/demo/seed-if-empty";
import { embedLexical, LEXICAL_DIMENSIONS, LEXICAL_MODEL } from "../../lib/embeddings/lexical-embedder";
import { toVectorLiteral } from "../../lib/embeddings/embedding-provider";
import { loadThreadIds } from "../../lib/threads/load-thread";
import { makeMemoryGenerator } from "./memory-text";

// bench:replay's data set (and bench/diag/replay-profile.ts's): the demo seed, then
// `memories` memories of the long demo conversation's user, made before the conversation
// (so all are alive at every turn), each with its lexical vector.

export const REPLAY_USER = "ana@example.com";
export const REPLAY_CONVERSATION = DEMO_IDS.long;

/** Loads the data set into an empty database; returns the long thread's turn ids, oldest first. */
export async function loadReplayDataset(db: Database, memories: number): Promise<string[]> {
  await seedDemo(db, DEFAULT_PROJECT_ID);
  const sql = projectSql(db.sql, DEFAULT_PROJECT_ID);
  const mem = makeMemoryGenerator(4242);
  for (let start = 0; start < memories; start += 2000) {
    const batch = Array.from({ length: Math.min(2000, memories - start) }, () => ({ id: randomUUID(), ...mem() }));
    await db.sql.transaction(async (tx) => {
      await tx.query(
        `INSERT INTO memories (id, user_id, memory_type, content, content_key, importance_score, created_at, updated_at)
         SELECT u.id, $2, u.t::memory_type, u.c, u.k, u.i, '2020-01-01T00:00:00Z', '2020-01-01T00:00:00Z'
           FROM unnest($1::uuid[], $3::text[], $4::text[], $5::text[], $6::float8[]) AS u(id, t, c, k, i)`,
        [batch.map((b) => b.id), REPLAY_USER, batch.map((b) => b.memory_type), batch.map((b) => b.content), batch.map((b) => contentKey(b.content)), batch.map((b) => b.importance)],
      );
      await tx.query(
        `INSERT INTO memory_embeddings (memory_id, model, user_id, dimensions, embedding)
         SELECT u.id, $2, $3, $4, u.v::vector FROM unnest($1::uuid[], $5::text[]) AS u(id, v)`,
        [batch.map((b) => b.id), LEXICAL_MODEL, REPLAY_USER, LEXICAL_DIMENSIONS, batch.map((b) => toVectorLiteral(embedLexical(b.content)))],
      );
    });
  }
  await db.sql.exec("ANALYZE");
  return (await loadThreadIds(sql, REPLAY_CONVERSATION)).reverse();
}

/** The profile every replay of the bench runs under: auto_context with placeholder summaries, k = 10. */
export const REPLAY_PROFILE = {
  settings: { strategy: { type: "auto_context", summarizer: "placeholder" }, memory: { k: 10 }, system_prompt: "You are a travel companion." },
  effective_from: "2020-01-01T00:00:00Z",
} as const;
