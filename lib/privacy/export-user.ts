import "server-only";
import { randomUUID } from "node:crypto";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import type { ProjectSql } from "../db/project-sql";
import { USER_TABLES } from "./user-tables";

// The export of one end user (GDPR articles 15 and 20): every row of USER_TABLES the user
// owns, per table (in the order of each row's JSON text), each row as stored (snake_case columns, the same ids and times) without
// the project, which the importing project supplies. Derived columns are left out: the
// full-text vector (generated) and the per-user counters (kept by triggers).
// POST /users/import (lib/privacy/import-user.ts) writes such a document back.

export const EXPORT_FORMAT = "memscope.user-export";
/**
 * 2: captured prompts as captured_messages (one row an exchange, or a message for older rows, per conversation) and
 * captured_spans without input_messages / output_messages / system_instructions, with
 * prompt_node, pred_key and finish_reasons (migrations 20261129060000, 20261129090000); since migration
 * 20261129210000 captured_spans without trace_id, span_id, operation, provider and the models (its turn's
 * metadata.otlp holds them; an import moves them there from an older document's spans).
 */
export const EXPORT_VERSION = 2;
/** What an import reads: columns go by name, so a version 1 document imports (its captured_spans' prompt columns are refused by name). */
export const IMPORTABLE_VERSIONS = [1, 2] as const;

export type UserExport = {
  format: typeof EXPORT_FORMAT;
  version: (typeof IMPORTABLE_VERSIONS)[number];
  user_id: string;
  exported_at: string;
  /** Table name -> rows (objects of column -> value, JSON as stored). */
  tables: Record<string, Record<string, unknown>[]>;
};

/** Columns the export leaves out, per table. */
const LEFT_OUT: Record<string, string[]> = { memories: ["search_tsv"] };

/** Rows fetched per round trip from each table's cursor. */
const PAGE_ROWS = 1000;

/**
 * The export as a byte stream of the same document. The rows are read in one snapshot through
 * a cursor per table, a page at a time, each row as PostgreSQL's JSON text (never a JavaScript
 * object), and written as they are read to a temporary file that is unlinked once open; the
 * answer streams that file. So the server's memory stays flat whatever the user's size (a
 * 100 000-memory user's 206 MB document was built whole: +1 GB), and the transaction, which
 * on the embedded database holds the database, lasts as long as the reads, not as long as the
 * client takes to download. null when the user has no row.
 */
export async function exportUserStream(sql: ProjectSql, userId: string): Promise<ReadableStream<Uint8Array> | null> {
  await fs.mkdir(path.join(os.tmpdir(), "memscope-exports"), { recursive: true });
  const file = path.join(os.tmpdir(), "memscope-exports", `${randomUUID()}.json`);
  const handle = await fs.open(file, "w+");
  // Unlinked at once: the open handle keeps the bytes readable, and nothing is left behind by a crash.
  await fs.unlink(file);
  try {
    let offset = 0;
    const write = async (text: string) => {
      const bytes = Buffer.from(text, "utf8");
      await handle.write(bytes, 0, bytes.length, offset);
      offset += bytes.length;
    };
    const any = await sql.transaction(async (tx) => {
      await tx.exec("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ");
      await write(`{"format":${JSON.stringify(EXPORT_FORMAT)},"version":${EXPORT_VERSION},"user_id":${JSON.stringify(userId)},"exported_at":${JSON.stringify(new Date().toISOString())},"tables":{`);
      let found = false;
      let firstTable = true;
      for (const u of USER_TABLES) {
        if (!u.exported) continue;
        const drop = ["project_id", ...(LEFT_OUT[u.table] ?? [])].map((c) => ` - '${c}'`).join("");
        await write(`${firstTable ? "" : ","}${JSON.stringify(u.table)}:[`);
        firstTable = false;
        await tx.query(
          `DECLARE export_rows NO SCROLL CURSOR FOR
             SELECT (to_jsonb(t.*)${drop})::text AS row FROM ${u.table} t WHERE ${u.where} ORDER BY to_jsonb(t.*)::text`,
          [tx.projectId, userId],
        );
        let firstRow = true;
        for (;;) {
          const page = await tx.query<{ row: string }>(`FETCH ${PAGE_ROWS} FROM export_rows`);
          if (!page.length) break;
          found = true;
          await write(`${firstRow ? "" : ","}${page.map((r) => r.row).join(",")}`);
          firstRow = false;
          if (page.length < PAGE_ROWS) break;
        }
        await tx.exec("CLOSE export_rows");
        await write("]");
      }
      await write("}}");
      return found;
    });
    if (!any) {
      await handle.close();
      return null;
    }
    const stream = handle.createReadStream({ start: 0, autoClose: true });
    return Readable.toWeb(stream) as ReadableStream<Uint8Array>;
  } catch (e) {
    await handle.close().catch(() => {});
    throw e;
  }
}
