import "server-only";
import type { ProjectSql } from "../db/project-sql";
import { forgetUserVectorIndex, sqlLiteral } from "../embeddings/user-vector-indexes";

// A large user's HNSW index (lib/embeddings/user-vector-indexes.ts) is a partial index whose
// definition names the user (WHERE ... user_id = '<id>'): the catalog keeps the id as long as
// the index exists, whatever the rows. Found by its definition, so every model's goes.

export async function dropUserVectorIndexes(sql: ProjectSql, userId: string, kind: "pglite" | "postgres"): Promise<number> {
  const rows = await sql.query<{ indexname: string }>(
    `SELECT indexname FROM pg_indexes
      WHERE tablename = 'memory_embeddings' AND indexname LIKE 'memory\\_embeddings\\_hnsw\\_u\\_%'
        AND strpos(indexdef, $1) > 0 AND strpos(indexdef, $2) > 0`,
    [`project_id = ${sqlLiteral(sql.projectId)}::text`, `user_id = ${sqlLiteral(userId)}::text`],
  );
  for (const r of rows) {
    // PostgreSQL: writes of other users go on meanwhile (not in a transaction; idempotent).
    await sql.exec(`DROP INDEX ${kind === "postgres" ? "CONCURRENTLY " : ""}IF EXISTS "${r.indexname}"`);
    forgetUserVectorIndex(r.indexname);
  }
  return rows.length;
}
