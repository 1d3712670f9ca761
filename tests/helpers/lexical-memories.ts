import { DEFAULT_PROJECT_ID, projectSql } from "../../lib/db/project-sql";
import { openDatabase, type Database } from "../../lib/db/open-database";
import { writeActiveModel } from "../../lib/embeddings/active-model";
import { toVectorLiteral } from "../../lib/embeddings/embedding-provider";
import { embedLexical, LEXICAL_DIMENSIONS, LEXICAL_MODEL } from "../../lib/embeddings/lexical-embedder";
import type { TestDatabase } from "./test-database";

// Many memories with their lexical vectors, written through SQL before an app server starts
// on the database (the embedded folder has one owner at a time): what a search-path suite
// needs in thousands, where the API would take minutes.

export type LexicalRow = { id: string; content: string; vec: number[] };

/** Words of the generated sentences (a memory's text from its number, varied on four axes). */
export const WORDS = {
  a: ["quiet", "bright", "early", "slow", "green", "urban", "weekly", "spicy", "formal", "remote"],
  b: ["coffee", "garden", "meeting", "train", "novel", "cello", "budget", "recipe", "river", "workshop"],
  c: ["plans", "prefers", "avoids", "reviews", "enjoys", "skips", "books", "tracks", "shares", "keeps"],
  d: ["on Mondays", "after work", "in Lisbon", "with family", "before noon", "at home", "on trips", "in winter", "at night", "online"],
};
export const sentence = (i: number) =>
  `Often ${WORDS.c[i % 10]} the ${WORDS.a[Math.floor(i / 10) % 10]} ${WORDS.b[Math.floor(i / 100) % 10]} ${WORDS.d[Math.floor(i / 1000) % 10]} item ${i}`;

const cosine = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i], 0);

/** The exact top k of `rows` by cosine with the query's lexical vector (what a search must find). */
export function exactTopK(rows: readonly LexicalRow[], query: string, k: number) {
  const q = embedLexical(query);
  return rows.map((r) => ({ id: r.id, cosine: cosine(r.vec, q) })).sort((x, y) => y.cosine - x.cosine).slice(0, k);
}

/** The test database opened directly (close it before an app server starts on it). */
export function openDirect(tdb: TestDatabase): Promise<Database> {
  return openDatabase(tdb.kind === "embedded" ? { kind: "pglite", dataDir: tdb.dataDir! } : { kind: "postgres", url: tdb.url! });
}

export function lexicalRow(id: string, content: string): LexicalRow {
  return { id, content, vec: embedLexical(content) };
}

/** Each user's rows as active facts of project `default`, in batches; then lexical is the active model and the planner's statistics are fresh. */
export async function writeLexicalMemories(db: Database, users: readonly (readonly [string, readonly LexicalRow[]])[]): Promise<void> {
  for (const [user, rows] of users) {
    for (let at = 0; at < rows.length; at += 2000) {
      const batch = rows.slice(at, at + 2000);
      await db.sql.transaction(async (tx) => {
        await tx.query(
          `INSERT INTO memories (id, user_id, memory_type, content, content_key, project_id)
           SELECT u.id, $2, 'fact', u.c, u.c, $3 FROM unnest($1::uuid[], $4::text[]) AS u(id, c)`,
          [batch.map((r) => r.id), user, DEFAULT_PROJECT_ID, batch.map((r) => r.content)],
        );
        await tx.query(
          `INSERT INTO memory_embeddings (memory_id, model, user_id, dimensions, embedding, project_id)
           SELECT u.id, $2, $3, $4, u.v::vector, $5 FROM unnest($1::uuid[], $6::text[]) AS u(id, v)`,
          [batch.map((r) => r.id), LEXICAL_MODEL, user, LEXICAL_DIMENSIONS, DEFAULT_PROJECT_ID, batch.map((r) => toVectorLiteral(r.vec))],
        );
      });
    }
  }
  await writeActiveModel(projectSql(db.sql, DEFAULT_PROJECT_ID), { model: LEXICAL_MODEL, dimensions: LEXICAL_DIMENSIONS, kind: "lexical" });
  await db.sql.exec("ANALYZE");
}
