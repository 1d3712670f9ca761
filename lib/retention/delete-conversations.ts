import "server-only";
import type { ProjectSql } from "../db/project-sql";
import type { KindRun, KindPreview, RunContext } from "./kind";

// "Delete conversations older than N days": a conversation whose last turn (the latest
// messages.created_at; its created_at when it has none) is before the cutoff goes with everything hanging off it: turns and their files, node memory,
// AgentScope summaries, offloaded contents cut from it, retrievals made in it (and their hits),
// import external ids naming it or its turns. Soft-deleted conversations count too.
// Memories extracted from it stay (they are the user's, governed by archive_memories); their
// source ids then name a conversation that no longer exists, as after any deletion.
// Batches of BATCH conversations, each one transaction: interrupted, whole conversations are
// gone or kept, and the next run goes on.

const BATCH = 200;

// The time of a conversation's last turn (issue 39): not updated_at, which a turn posted with
// an old created_at (an import, a backfill) sets to now, and a rename or text erasure moves.
// One index probe a conversation (messages by project, conversation, created_at DESC).
const LAST_TURN = `coalesce((SELECT max(m.created_at) FROM messages m WHERE m.project_id = c.project_id AND m.conversation_id = c.id), c.created_at)`;

/** Deletes the rows of the conversations $2 (uuid[]), dependents first; returns turns deleted. */
const DEPENDENTS = [
  `DELETE FROM memory_retrieval_hits h USING memory_retrievals r
    WHERE h.project_id = $1 AND r.project_id = $1 AND h.retrieval_id = r.id AND r.conversation_id = ANY($2::uuid[])`,
  `DELETE FROM memory_retrievals WHERE project_id = $1 AND conversation_id = ANY($2::uuid[])`,
  `DELETE FROM import_external_ids x USING messages m
    WHERE x.project_id = $1 AND m.project_id = $1 AND x.local_id = m.id AND m.conversation_id = ANY($2::uuid[])`,
  `DELETE FROM import_external_ids WHERE project_id = $1 AND local_id = ANY($2::uuid[])`,
  `DELETE FROM offloaded_contents WHERE project_id = $1 AND conversation_id = ANY($2::uuid[])`,
  `DELETE FROM agentscope_summaries WHERE project_id = $1 AND conversation_id = ANY($2::uuid[]::text[])`,
  `DELETE FROM node_memories WHERE project_id = $1 AND conversation_id = ANY($2::uuid[])`,
  `DELETE FROM message_files f USING messages m
    WHERE f.project_id = $1 AND m.project_id = $1 AND f.message_id = m.id AND m.conversation_id = ANY($2::uuid[])`,
];

export async function previewConversations(sql: ProjectSql, cutoff: string): Promise<KindPreview> {
  const [c] = await sql.query<{ conversations: number; turns: number }>(
    `SELECT count(*)::int AS conversations, coalesce(sum((SELECT count(*) FROM messages m WHERE m.project_id = c.project_id AND m.conversation_id = c.id)), 0)::int AS turns
       FROM conversations c WHERE c.project_id = $1 AND ${LAST_TURN} < $2::timestamptz`,
    [sql.projectId, cutoff],
  );
  const samples = await sql.query<Record<string, string | number | null>>(
    `SELECT id, name, user_id, turns, to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS last_active_at FROM (
       SELECT c.id::text AS id, c.name, c.end_user_id AS user_id, c.turn_count AS turns, ${LAST_TURN} AS at
         FROM conversations c WHERE c.project_id = $1) x
      WHERE at < $2::timestamptz ORDER BY at, id LIMIT 5`,
    [sql.projectId, cutoff],
  );
  return { counts: { conversations: c.conversations, turns: c.turns }, samples };
}

export async function runConversations(sql: ProjectSql, cutoff: string, ctx: RunContext): Promise<KindRun> {
  const counts = { conversations: 0, turns: 0 };
  for (;;) {
    if (ctx.shouldStop()) return { counts, receipts: [], complete: false };
    const batch = await sql.transaction(async (tx) => {
      // Locked, then checked against the cutoff again in a statement after the lock: a turn
      // added meanwhile (its insert updates the conversation row, so it held the lock) makes
      // the conversation recent, and it stays.
      const picked = (
        await tx.query<{ id: string }>(
          `SELECT id FROM (SELECT c.id, ${LAST_TURN} AS at FROM conversations c WHERE c.project_id = $1) x
            WHERE at < $2::timestamptz ORDER BY at, id LIMIT ${BATCH}`,
          [tx.projectId, cutoff],
        )
      ).map((r) => r.id);
      if (!picked.length) return { n: 0, turns: 0, conversations: 0 };
      await tx.query(`SELECT 1 FROM conversations WHERE project_id = $1 AND id = ANY($2::uuid[]) FOR UPDATE`, [tx.projectId, picked]);
      const ids = (
        await tx.query<{ id: string }>(
          `SELECT c.id FROM conversations c WHERE c.project_id = $1 AND c.id = ANY($2::uuid[]) AND ${LAST_TURN} < $3::timestamptz`,
          [tx.projectId, picked, cutoff],
        )
      ).map((r) => r.id);
      for (const stmt of DEPENDENTS) await tx.query(stmt, [tx.projectId, ids]);
      const turns = await tx.query(`DELETE FROM messages WHERE project_id = $1 AND conversation_id = ANY($2::uuid[]) RETURNING 1`, [tx.projectId, ids]);
      const convs = await tx.query(`DELETE FROM conversations WHERE project_id = $1 AND id = ANY($2::uuid[]) RETURNING 1`, [tx.projectId, ids]);
      return { n: picked.length, turns: turns.length, conversations: convs.length };
    });
    // Counted once committed.
    counts.turns += batch.turns;
    counts.conversations += batch.conversations;
    if (batch.n < BATCH) return { counts, receipts: [], complete: true };
  }
}
