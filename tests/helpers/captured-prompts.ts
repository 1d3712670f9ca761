import { DEFAULT_PROJECT_ID, projectSql } from "@/lib/db/project-sql";
import { loadCapturedPrompts, type CapturedPrompt } from "@/lib/capture/prompt-store";
import type { Database } from "@/lib/db/open-database";

/** Rows of captured_spans (with trace_id and span_id) with their prompts, read back as the product reads them (lib/capture/prompt-store.ts). */
export async function withPrompts<T extends { trace_id: string; span_id: string }>(db: Database, rows: T[], projectId = DEFAULT_PROJECT_ID): Promise<(T & CapturedPrompt)[]> {
  const prompts = await loadCapturedPrompts(projectSql(db.sql, projectId), rows.map((r) => ({ traceId: r.trace_id, spanId: r.span_id })));
  return rows.map((r) => ({ ...r, ...prompts.get(`${r.trace_id}:${r.span_id}`)! }));
}
