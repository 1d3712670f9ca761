import "server-only";
import type { ProjectSql } from "../db/project-sql";
import type { ContentPart } from "../tokens/chat-formula";

export type TurnFileParts = { user: ContentPart[]; assistant: ContentPart[] };

/** The file parts (images, documents, ...) of the given turns, by turn id, in stored order. */
export async function loadFileParts(sql: ProjectSql, ids: string[]): Promise<Map<string, TurnFileParts>> {
  const files = new Map<string, TurnFileParts>();
  if (!ids.length) return files;
  const fileRows = await sql.query<{
    message_id: string;
    type: ContentPart["type"];
    transfer_method: string;
    url: string | null;
    upload_file_id: string | null;
    belongs_to: string;
  }>(
    `SELECT message_id, type, transfer_method, url, upload_file_id, belongs_to
       FROM message_files WHERE message_id = ANY($1::uuid[]) AND project_id = $2 ORDER BY message_id, position`,
    [ids, sql.projectId],
  );
  for (const f of fileRows) {
    const entry = files.get(f.message_id) ?? { user: [], assistant: [] };
    const part = { type: f.type, transfer_method: f.transfer_method, url: f.url, upload_file_id: f.upload_file_id } as ContentPart;
    (f.belongs_to === "assistant" ? entry.assistant : entry.user).push(part);
    files.set(f.message_id, entry);
  }
  return files;
}
