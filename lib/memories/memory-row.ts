import type { Memory } from "./schemas";

export const MEMORY_COLUMNS = `m.id, m.app_id, m.user_id, m.memory_type, m.content, m.structured_data, m.source_session_id,
  m.importance_score, m.access_count, m.last_accessed_at, m.status, m.confidence, m.version, m.created_at, m.updated_at`;

export type MemoryRow = {
  id: string;
  app_id: string | null;
  user_id: string;
  memory_type: Memory["memory_type"];
  content: string;
  structured_data: Record<string, unknown> | null;
  source_session_id: string | null;
  importance_score: number;
  access_count: number;
  last_accessed_at: Date | string | null;
  status: Memory["status"];
  confidence: number;
  version: number;
  created_at: Date | string;
  updated_at: Date | string;
};

const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());

export function serializeMemory(r: MemoryRow): Memory {
  return {
    id: r.id,
    app_id: r.app_id,
    user_id: r.user_id,
    memory_type: r.memory_type,
    content: r.content,
    structured_data: r.structured_data ?? null,
    source_session_id: r.source_session_id,
    importance_score: Number(r.importance_score),
    access_count: r.access_count,
    last_accessed_at: iso(r.last_accessed_at),
    status: r.status,
    confidence: Number(r.confidence),
    version: r.version,
    created_at: iso(r.created_at)!,
    updated_at: iso(r.updated_at)!,
  };
}

/** The fields history records in before/after snapshots. */
export function snapshot(m: Memory) {
  return {
    memory_type: m.memory_type,
    content: m.content,
    structured_data: m.structured_data,
    importance_score: m.importance_score,
    confidence: m.confidence,
    status: m.status,
    version: m.version,
  };
}
