import { DEFAULT_PROJECT_ID, projectSql } from "@/lib/db/project-sql";
import { loadCapturedPrompts, type CapturedPrompt } from "@/lib/capture/prompt-store";
import type { Database } from "@/lib/db/open-database";

/** Rows of captured_spans (with message_id, the span's turn) with their prompts, read back as the product reads them (lib/capture/prompt-store.ts). */
export async function withPrompts<T extends { message_id: string }>(db: Database, rows: T[], projectId = DEFAULT_PROJECT_ID): Promise<(T & CapturedPrompt)[]> {
  const prompts = await loadCapturedPrompts(projectSql(db.sql, projectId), rows.map((r) => r.message_id));
  return rows.map((r) => ({ ...r, ...prompts.get(r.message_id)! }));
}

/**
 * Every row an OTLP ingest wrote for a project (conversations, turns, captured spans and prompt
 * nodes), without the project id, the times the database set and the database-wide sequence
 * number: two projects fed the same spans compare equal row for row.
 */
export async function capturedRowsOf(db: Database, projectId: string): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const [table, order] of [
    ["conversations", "id"],
    ["messages", "id"],
    ["captured_spans", "message_id"],
    ["captured_messages", "conversation_id, id"],
  ] as const) {
    const rows = await db.sql.query<{ r: Record<string, unknown> }>(
      `SELECT to_jsonb(t) - 'project_id' - 'created_at' - 'updated_at' - 'seq' AS r FROM ${table} t WHERE project_id = $1 ORDER BY ${order}`,
      [projectId],
    );
    out[table] = rows.map((x) => x.r);
  }
  return out;
}
