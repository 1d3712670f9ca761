import { DEFAULT_PROJECT_ID, projectSql } from "@/lib/db/project-sql";
import { loadCapturedPrompts, type CapturedPrompt } from "@/lib/capture/prompt-store";
import type { Database } from "@/lib/db/open-database";

/** Rows of captured_spans (with message_id, the span's turn) with their prompts, read back as the product reads them (lib/capture/prompt-store.ts). */
export async function withPrompts<T extends { message_id: string }>(db: Database, rows: T[], projectId = DEFAULT_PROJECT_ID): Promise<(T & CapturedPrompt)[]> {
  const prompts = await loadCapturedPrompts(projectSql(db.sql, projectId), rows.map((r) => r.message_id));
  return rows.map((r) => ({ ...r, ...prompts.get(r.message_id)! }));
}
