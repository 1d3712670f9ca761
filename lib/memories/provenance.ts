import "server-only";
import type { ProjectSql } from "../db/project-sql";
import { notFound } from "../errors/domain-errors";
import type { ConversationMemories, MemoryOrigin } from "./provenance-schemas";

// Provenance reads: where a memory came from (conversation and turn, import, merge and
// compression sources, its first history event) and, for a conversation, the memories
// extracted from it and the retrievals made for it. Every query is scoped to the project.

const iso = (d: Date | string) => new Date(d).toISOString();
type Ref = { id: string; memory_type: MemoryOrigin["merged_from"][number]["memory_type"]; content: string; status: MemoryOrigin["merged_from"][number]["status"] };

export async function memoryOrigin(sql: ProjectSql, memoryId: string): Promise<MemoryOrigin> {
  const [m] = await sql.query<{ source_session_id: string | null; source_message_id: string | null }>(
    `SELECT source_session_id, source_message_id FROM memories WHERE id = $1 AND project_id = $2`,
    [memoryId, sql.projectId],
  );
  if (!m) throw notFound("Memory", memoryId);

  const [conversation] = m.source_session_id
    ? await sql.query<{ id: string; name: string; deleted: boolean }>(
        `SELECT id, name, deleted_at IS NOT NULL AS deleted FROM conversations WHERE id = $1 AND project_id = $2`,
        [m.source_session_id, sql.projectId],
      )
    : [];
  const [turn] = m.source_message_id
    ? await sql.query<{ id: string; query: string }>(
        `SELECT id, left(query, 200) AS query FROM messages WHERE id = $1 AND project_id = $2`,
        [m.source_message_id, sql.projectId],
      )
    : [];
  const [imported] = await sql.query<{ job_id: string | null; source: string; external_id: string; label: string | null; created_at: Date | string }>(
    `SELECT x.job_id, x.source, x.external_id, j.label, x.created_at
       FROM import_external_ids x LEFT JOIN import_jobs j ON j.id = x.job_id AND j.project_id = x.project_id
      WHERE x.local_id = $1 AND x.project_id = $2 AND x.kind = 'memory'
      ORDER BY x.created_at LIMIT 1`,
    [memoryId, sql.projectId],
  );
  const related = await sql.query<Ref & { relation_type: "merged_into" | "derived_from" }>(
    `SELECT r.relation_type, o.id, o.memory_type, left(o.content, 300) AS content, o.status
       FROM memory_relations r JOIN memories o ON o.project_id = r.project_id
        AND o.id = CASE WHEN r.relation_type = 'merged_into' THEN r.source_id ELSE r.target_id END
      WHERE r.project_id = $2 AND r.removed_at IS NULL
        AND ((r.relation_type = 'merged_into' AND r.target_id = $1) OR (r.relation_type = 'derived_from' AND r.source_id = $1))
      ORDER BY r.created_at, o.id`,
    [memoryId, sql.projectId],
  );
  const [first] = await sql.query<{ event_type: string; actor: string; reason: string | null; created_at: Date | string }>(
    `SELECT event_type, actor::text AS actor, reason, created_at FROM memory_events
      WHERE memory_id = $1 AND project_id = $2 ORDER BY created_at, id LIMIT 1`,
    [memoryId, sql.projectId],
  );
  const ref = ({ id, memory_type, content, status }: Ref): Ref => ({ id, memory_type, content, status });
  return {
    conversation: conversation ?? (m.source_session_id ? { id: m.source_session_id, name: "", deleted: true } : null),
    turn: turn ?? null,
    import: imported ? { ...imported, created_at: iso(imported.created_at) } : null,
    merged_from: related.filter((r) => r.relation_type === "merged_into").map(ref),
    derived_from: related.filter((r) => r.relation_type === "derived_from").map(ref),
    created: first ? { ...first, created_at: iso(first.created_at) } : null,
  };
}

export async function conversationMemories(
  sql: ProjectSql,
  conversationId: string,
  opts: { retrievals: number; includeDryRuns: boolean },
): Promise<ConversationMemories> {
  const [c] = await sql.query(`SELECT 1 FROM conversations WHERE id = $1 AND project_id = $2 AND deleted_at IS NULL`, [conversationId, sql.projectId]);
  if (!c) throw notFound("Conversation", conversationId);

  const extracted = await sql.query<Ref & { source_message_id: string | null; importance_score: number; created_at: Date | string }>(
    `SELECT id, memory_type, content, status, source_message_id, importance_score, created_at
       FROM memories WHERE source_session_id = $1 AND project_id = $2
      ORDER BY created_at DESC, id DESC LIMIT 200`,
    [conversationId, sql.projectId],
  );
  const retrievals = opts.retrievals
    ? await sql.query<{ id: string; query: string; user_id: string; dry_run: boolean; k: number; latency_ms: number; created_at: Date | string }>(
        `SELECT id, query, user_id, dry_run, k, latency_ms, created_at FROM memory_retrievals
          WHERE conversation_id = $1 AND project_id = $2 AND ($4 OR NOT dry_run)
          ORDER BY created_at DESC, id DESC LIMIT $3`,
        [conversationId, sql.projectId, opts.retrievals, opts.includeDryRuns],
      )
    : [];
  const hits = retrievals.length
    ? await sql.query<{ retrieval_id: string; rank: number; memory_id: string; score: number; cosine: number; time_decay: number; importance: number } & Partial<Ref>>(
        `SELECT h.retrieval_id, h.rank, h.memory_id, h.score, h.cosine, h.time_decay, h.importance,
                m.id, m.memory_type, m.content, m.status
           FROM memory_retrieval_hits h
           LEFT JOIN memories m ON m.id = h.memory_id AND m.project_id = h.project_id
          WHERE h.retrieval_id = ANY($1::uuid[]) AND h.project_id = $2
          ORDER BY h.retrieval_id, h.rank`,
        [retrievals.map((r) => r.id), sql.projectId],
      )
    : [];
  const byRetrieval = new Map<string, ConversationMemories["retrievals"][number]["hits"]>();
  for (const h of hits) {
    const list = byRetrieval.get(h.retrieval_id) ?? [];
    list.push({
      rank: h.rank,
      memory_id: h.memory_id,
      memory: h.id ? { id: h.id, memory_type: h.memory_type!, content: h.content!, status: h.status! } : null,
      score: Number(h.score),
      cosine: Number(h.cosine),
      time_decay: Number(h.time_decay),
      importance: Number(h.importance),
    });
    byRetrieval.set(h.retrieval_id, list);
  }
  return {
    extracted: extracted.map((m) => ({
      id: m.id,
      memory_type: m.memory_type,
      content: m.content,
      status: m.status,
      source_message_id: m.source_message_id,
      importance_score: Number(m.importance_score),
      created_at: iso(m.created_at),
    })),
    retrievals: retrievals.map((r) => ({
      ...r,
      latency_ms: Number(r.latency_ms),
      created_at: iso(r.created_at),
      hits: byRetrieval.get(r.id) ?? [],
    })),
  };
}
