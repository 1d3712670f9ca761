import "server-only";
import { decodeCursor, encodeCursor, ZCursorInt, ZCursorTime } from "../pagination/cursor";
import type { ProjectSql } from "../db/project-sql";
import { FILE_COLUMNS, MESSAGE_COLUMNS, serializeMessage, type FileRow, type MessageRow } from "./serialize-message";

/** Every turn of the conversation (all branches), oldest first, keyset-paginated. */
export async function listMessages(sql: ProjectSql, conversationId: string, opts: { cursor?: string; limit: number }) {
  const after = decodeCursor(opts.cursor, "messages", [ZCursorTime, ZCursorInt]);
  const rows = await sql.query<MessageRow & { seq: number; ts: string }>(
    `SELECT ${MESSAGE_COLUMNS}, seq, created_at::text AS ts
       FROM messages
      WHERE conversation_id = $1 AND project_id = $3 ${after ? "AND (created_at, seq) > ($4::timestamptz, $5::int)" : ""}
      ORDER BY created_at ASC, seq ASC
      LIMIT $2`,
    after ? [conversationId, opts.limit + 1, sql.projectId, after[0], after[1]] : [conversationId, opts.limit + 1, sql.projectId],
  );
  const page = rows.slice(0, opts.limit);
  const ids = page.map((r) => r.id);
  const files = ids.length
    ? await sql.query<FileRow>(
        `SELECT ${FILE_COLUMNS} FROM message_files WHERE message_id = ANY($1::uuid[]) AND project_id = $2 ORDER BY message_id, position`,
        [ids, sql.projectId],
      )
    : [];
  const byMessage = new Map<string, FileRow[]>();
  for (const f of files) byMessage.set(f.message_id, [...(byMessage.get(f.message_id) ?? []), f]);
  const last = page[page.length - 1];
  return {
    data: page.map((r) => serializeMessage(r, byMessage.get(r.id) ?? [])),
    next_cursor: rows.length > opts.limit && last ? encodeCursor("messages", [last.ts, last.seq]) : null,
  };
}
