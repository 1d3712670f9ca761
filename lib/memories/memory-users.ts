import "server-only";
import type { SqlRunner } from "../db/migrations";

/** Users that have memories, for pickers. */
export async function memoryUsers(sql: SqlRunner) {
  const rows = await sql.query<{ user_id: string; total: number; active: number }>(
    `SELECT user_id, count(*)::int AS total, count(*) FILTER (WHERE status = 'active')::int AS active
       FROM memories GROUP BY user_id ORDER BY user_id LIMIT 1000`,
  );
  return rows;
}
