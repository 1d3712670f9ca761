import "server-only";
import type { ProjectSql } from "../db/project-sql";

/** Users that have memories, for pickers: read from the trigger-kept counts, not counted. */
export async function memoryUsers(sql: ProjectSql) {
  return sql.query<{ user_id: string; total: number; active: number }>(
    `SELECT user_id, sum(n)::int AS total, COALESCE(sum(n) FILTER (WHERE status = 'active'), 0)::int AS active
       FROM memory_user_counts WHERE project_id = $1 GROUP BY user_id HAVING sum(n) > 0 ORDER BY user_id LIMIT 1000`,
    [sql.projectId],
  );
}
