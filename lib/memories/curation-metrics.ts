import "server-only";
import type { ProjectSql } from "../db/project-sql";
import type { MemoryMetrics } from "./curation-schemas";
import { MEMORY_COLUMNS, serializeMemory, type MemoryRow } from "./memory-row";
import { MEMORY_STATUSES, MEMORY_TYPES } from "./schemas";

// The design doc's MemoryMetrics (section 7): counts, average importance, retrieval
// latency percentiles (from the retrieval log), the most accessed memories and the
// latest retrievals. No cache, so no cache hit rate.

export async function memoryMetrics(sql: ProjectSql, userId: string): Promise<MemoryMetrics> {
  const counts = await sql.query<{ memory_type: string; status: string; n: number }>(
    `SELECT memory_type::text, status::text, count(*)::int AS n FROM memories WHERE user_id = $1 AND project_id = $2 GROUP BY 1, 2`,
    [userId, sql.projectId],
  );
  const by_type: Record<string, number> = Object.fromEntries(MEMORY_TYPES.map((t) => [t, 0]));
  const by_status: Record<string, number> = Object.fromEntries(MEMORY_STATUSES.map((s) => [s, 0]));
  let total = 0;
  for (const c of counts) {
    by_type[c.memory_type] = (by_type[c.memory_type] ?? 0) + c.n;
    by_status[c.status] = (by_status[c.status] ?? 0) + c.n;
    total += c.n;
  }
  const [avg] = await sql.query<{ v: number | null }>(
    `SELECT avg(importance_score)::float8 AS v FROM memories WHERE user_id = $1 AND project_id = $2 AND status = 'active'`,
    [userId, sql.projectId],
  );
  const [lat] = await sql.query<{ n: number; p50: number | null; p99: number | null }>(
    `SELECT count(*)::int AS n,
            percentile_cont(0.5) WITHIN GROUP (ORDER BY latency_ms)::float8 AS p50,
            percentile_cont(0.99) WITHIN GROUP (ORDER BY latency_ms)::float8 AS p99
       FROM memory_retrievals WHERE user_id = $1 AND project_id = $2`,
    [userId, sql.projectId],
  );
  const top = await sql.query<MemoryRow>(
    `SELECT ${MEMORY_COLUMNS} FROM memories m WHERE m.user_id = $1 AND m.project_id = $2 AND m.access_count > 0
      ORDER BY m.access_count DESC, m.last_accessed_at DESC NULLS LAST, m.id LIMIT 10`,
    [userId, sql.projectId],
  );
  const recent = await sql.query<{ id: string; query: string; result_count: number; latency_ms: number; created_at: Date | string }>(
    `SELECT id, query, result_count, latency_ms, created_at FROM memory_retrievals WHERE user_id = $1 AND project_id = $2 ORDER BY created_at DESC, id DESC LIMIT 10`,
    [userId, sql.projectId],
  );
  return {
    totals: { by_type, by_status, total },
    average_importance: avg?.v === null || avg?.v === undefined ? null : Number(avg.v),
    retrieval: { count: lat.n, p50_ms: lat.p50 === null ? null : Number(lat.p50), p99_ms: lat.p99 === null ? null : Number(lat.p99) },
    most_accessed: top.map((r) => ({ memory: serializeMemory(r), access_count: r.access_count })),
    recent_retrievals: recent.map((r) => ({
      id: r.id,
      query: r.query,
      result_count: r.result_count,
      latency_ms: Number(r.latency_ms),
      created_at: new Date(r.created_at).toISOString(),
    })),
  };
}
