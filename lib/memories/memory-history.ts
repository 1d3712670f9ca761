import "server-only";
import type { ProjectSql } from "../db/project-sql";
import type { MemoryEvent } from "./schemas";

export async function memoryHistory(sql: ProjectSql, memoryId: string): Promise<MemoryEvent[]> {
  const rows = await sql.query<MemoryEvent & { created_at: Date | string }>(
    `SELECT id, memory_id, event_type, actor, actor_label, before, after, reason, batch_id, created_at
       FROM memory_events WHERE memory_id = $1 AND project_id = $2 ORDER BY created_at DESC, id DESC LIMIT 1000`,
    [memoryId, sql.projectId],
  );
  return rows.map((r) => ({ ...r, created_at: new Date(r.created_at).toISOString() }));
}

/** The real (not dry-run) retrievals that returned this memory ("retrieved by these queries"). */
export async function memoryAccesses(sql: ProjectSql, memoryId: string, limit = 100) {
  const rows = await sql.query<{
    retrieval_id: string;
    query: string;
    conversation_id: string | null;
    rank: number;
    score: number;
    cosine: number;
    time_decay: number;
    importance: number;
    dry_run: boolean;
    created_at: Date | string;
  }>(
    `SELECT h.retrieval_id, r.query, r.conversation_id, h.rank, h.score, h.cosine, h.time_decay, h.importance, r.dry_run, r.created_at
       FROM memory_retrieval_hits h JOIN memory_retrievals r ON r.project_id = h.project_id AND r.id = h.retrieval_id
      WHERE h.memory_id = $1 AND h.project_id = $3 AND NOT r.dry_run
      ORDER BY r.created_at DESC LIMIT $2`,
    [memoryId, limit, sql.projectId],
  );
  return rows.map((r) => ({ ...r, created_at: new Date(r.created_at).toISOString() }));
}
