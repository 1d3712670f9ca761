import "server-only";
import { randomUUID } from "node:crypto";
import type { ProjectSql } from "../db/project-sql";
import type { KindPreview, KindRun, RunContext } from "./kind";

// "Archive memories not accessed for N days": an active memory last retrieved before the
// cutoff (or, never retrieved, created before it) is archived, never destroyed: the row, its
// vectors and relations stay, and POST /memories/{id}/restore brings it back. Each archive is
// a history event (actor system, reason "retention:<rule id>", one batch id per run), as a
// bulk archive writes. Batches of BATCH memories, each one transaction.

const BATCH = 500;
const CANDIDATE = `project_id = $1 AND status = 'active' AND coalesce(last_accessed_at, created_at) < $2::timestamptz`;

export async function previewMemories(sql: ProjectSql, cutoff: string): Promise<KindPreview> {
  const [c] = await sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM memories WHERE ${CANDIDATE}`, [sql.projectId, cutoff]);
  const samples = await sql.query<Record<string, string | number | null>>(
    `SELECT id::text AS id, user_id, left(content, 80) AS content,
            to_char(coalesce(last_accessed_at, created_at) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS last_used_at
       FROM memories WHERE ${CANDIDATE} ORDER BY coalesce(last_accessed_at, created_at), id LIMIT 5`,
    [sql.projectId, cutoff],
  );
  return { counts: { memories: c.n }, samples };
}

export async function runMemories(sql: ProjectSql, cutoff: string, ctx: RunContext): Promise<KindRun> {
  const counts = { memories: 0 };
  const batchId = randomUUID();
  for (;;) {
    if (ctx.shouldStop()) return { counts, receipts: [], complete: false };
    // One statement: lock a batch, archive it, write each memory's history event with the
    // snapshots before and after (lib/memories/memory-row.ts `snapshot`).
    const n = await sql.transaction(async (tx) => {
      const rows = await tx.query(
        `WITH chosen AS (
           SELECT id FROM memories WHERE ${CANDIDATE} ORDER BY coalesce(last_accessed_at, created_at), id LIMIT ${BATCH}
         ), picked AS (
           -- Locked in id order, as every writer of many memory rows locks them (a search's
           -- access bump among them: issue 43); the oldest-first order would lock them in
           -- another. A memory retrieved since it was chosen is no longer a candidate: it stays.
           SELECT id FROM memories WHERE ${CANDIDATE} AND id IN (SELECT id FROM chosen) ORDER BY id FOR UPDATE OF memories
         ), archived AS (
           UPDATE memories m SET status = 'archived', version = m.version + 1, updated_at = now()
             FROM picked WHERE m.project_id = $1 AND m.id = picked.id
           RETURNING m.id, m.memory_type, m.content, m.structured_data, m.importance_score, m.confidence, m.version
         )
         INSERT INTO memory_events (id, memory_id, event_type, actor, before, after, reason, batch_id, project_id, actor_label)
         SELECT gen_random_uuid(), a.id, 'archive', 'system',
                jsonb_build_object('memory_type', a.memory_type, 'content', a.content, 'structured_data', a.structured_data,
                                   'importance_score', a.importance_score, 'confidence', a.confidence, 'status', 'active', 'version', a.version - 1),
                jsonb_build_object('memory_type', a.memory_type, 'content', a.content, 'structured_data', a.structured_data,
                                   'importance_score', a.importance_score, 'confidence', a.confidence, 'status', 'archived', 'version', a.version),
                $3, $4::uuid, $1, $5
           FROM archived a
         RETURNING 1`,
        [tx.projectId, cutoff, `retention:${ctx.ruleId}`, batchId, ctx.by],
      );
      return rows.length;
    });
    counts.memories += n;
    if (n < BATCH) return { counts, receipts: [], complete: true };
  }
}
