import "server-only";
import type { ProjectSql } from "../db/project-sql";
import { NotFoundError } from "../errors/domain-errors";
import { runUserErasure } from "../privacy/run-erasure";
import { countUserRows, totalOf } from "../privacy/user-tables";
import type { KindPreview, KindRun, RunContext } from "./kind";

// "Erase end users inactive for N days": an end user (a conversation's end_user_id or a
// memory's user_id) whose latest activity is before the cutoff is erased through the user
// erasure (lib/privacy/run-erasure.ts): every row of theirs, in resumable batches, with the
// probes and a receipt in the audit log ("user.erased"), as POST /users/{id}/erase does.
// Activity: a conversation's last turn, a memory's creation or last retrieval, a retrieval made
// for the user. Not a memory's updated_at: curation and retention itself (archive_memories)
// change it, and neither is the person's activity.

const LAST_ACTIVE = `
  SELECT user_id, max(at) AS last_active_at FROM (
    SELECT end_user_id AS user_id, max(updated_at) AS at FROM conversations WHERE project_id = $1 AND end_user_id IS NOT NULL GROUP BY 1
    UNION ALL
    SELECT user_id, max(greatest(created_at, last_accessed_at)) FROM memories WHERE project_id = $1 GROUP BY 1
    UNION ALL
    SELECT user_id, max(created_at) FROM memory_retrievals WHERE project_id = $1 AND user_id IS NOT NULL GROUP BY 1
  ) a GROUP BY user_id`;

async function inactiveUsers(sql: ProjectSql, cutoff: string, limit?: number): Promise<{ user_id: string; last_active_at: string }[]> {
  return sql.query(
    `SELECT user_id, to_char(last_active_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS last_active_at
       FROM (${LAST_ACTIVE}) u WHERE last_active_at < $2::timestamptz ORDER BY u.last_active_at, user_id ${limit ? `LIMIT ${limit}` : ""}`,
    [sql.projectId, cutoff],
  );
}

/** Users and their rows (the erasure's dry-run count, per user): what a run now would erase. */
export async function previewUsers(sql: ProjectSql, cutoff: string): Promise<KindPreview> {
  const users = await inactiveUsers(sql, cutoff);
  let rows = 0;
  for (const u of users) rows += totalOf(await countUserRows(sql, u.user_id));
  return { counts: { users: users.length, rows }, samples: users.slice(0, 5) };
}

export async function runUsers(sql: ProjectSql, cutoff: string, ctx: RunContext): Promise<KindRun> {
  const counts = { users: 0, rows: 0 };
  const receipts: string[] = [];
  for (const u of await inactiveUsers(sql, cutoff)) {
    if (ctx.shouldStop()) return { counts, receipts, complete: false };
    // Active again since the list was read: kept.
    const [still] = await sql.query<{ inactive: boolean }>(
      `SELECT greatest((SELECT max(updated_at) FROM conversations WHERE project_id = $1 AND end_user_id = $3),
                       (SELECT max(greatest(created_at, last_accessed_at)) FROM memories WHERE project_id = $1 AND user_id = $3),
                       (SELECT max(created_at) FROM memory_retrievals WHERE project_id = $1 AND user_id = $3)) < $2::timestamptz AS inactive`,
      [sql.projectId, cutoff, u.user_id],
    );
    if (!still.inactive) continue;
    try {
      const r = await runUserErasure(sql, u.user_id, { dryRun: false, physical: false, by: ctx.by });
      if (r.dry_run) continue;
      counts.users++;
      counts.rows += r.receipt.total;
      receipts.push(r.receipt.receipt_id);
    } catch (e) {
      if (e instanceof NotFoundError) continue; // erased meanwhile by someone else
      throw e;
    }
  }
  return { counts, receipts, complete: true };
}
