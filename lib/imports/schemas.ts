import { z } from "zod";
import { IMPORT_FORMATS, UPLOAD_FORMATS } from "./types";
import { ZUserIdInput } from "../http/user-id";

// Contracts of the import API, shared by routes, OpenAPI, the CLI and the /import page.
// Client-safe: zod only.

/** A file as text (JSON or JSONL) travels inside the JSON body: 200 MiB at most. */
export const MAX_IMPORT_BYTES = 200 * 1024 * 1024;

export const ZImportFormat = z.enum(IMPORT_FORMATS);

export const ZImportCreate = z
  .object({
    format: ZImportFormat.optional().describe("Detected from the content when omitted; dify-db must be named."),
    content: z
      .string()
      .max(MAX_IMPORT_BYTES)
      .optional()
      .describe("The file's text: Dify Service API JSON, a Mem0 export, OpenAI chat JSON / JSONL, ChatGPT's or Claude's conversations.json, a Letta agent file, or a MEMORY.md (large files and folders: POST /imports/upload)."),
    file_name: z.string().trim().max(500).optional().describe("Shown as the job's label."),
    namespace_user_index: z.number().int().min(-20).max(20).optional().describe("langgraph: which segment of a store namespace names the user (default -1, the last: LangMem's (\"memories\", user_id))."),
    dify_app_id: z.uuid().optional().describe("dify-db: the Dify app whose conversations to import (see GET /imports/dify-apps)."),
    app_id: z.string().trim().min(1).max(200).optional().describe("The Memscope app id imported conversations get (default: the source: dify, openai; dify-db: the Dify app's id)."),
    end_user_id: ZUserIdInput.optional().describe("The end user of conversations whose source names none."),
    dry_run: z.boolean().default(false).describe("Read and check everything, write nothing: the job's counts say what would change."),
  })
  .strict()
  .superRefine((v, ctx) => {
    if (v.format === "openai-agents" || v.format === "agentscope") {
      ctx.addIssue({ code: "custom", path: ["format"], message: `${v.format} is a database file or a folder: send its bytes to POST /imports/upload` });
    } else if (v.format === "langgraph") {
      // No content: the store table of MEMSCOPE_LANGGRAPH_DATABASE_URL; content: its SQL dump.
    } else if (v.format === "dify-db") {
      if (!v.dify_app_id) ctx.addIssue({ code: "custom", path: ["dify_app_id"], message: "required for dify-db" });
      if (v.content !== undefined) ctx.addIssue({ code: "custom", path: ["content"], message: "dify-db reads Dify's database, not a file" });
    } else if (v.content === undefined) {
      ctx.addIssue({ code: "custom", path: ["content"], message: "required (the file's text), unless format is dify-db" });
    }
  });
export type ImportCreate = z.infer<typeof ZImportCreate>;

export const ZImportProblem = z.object({
  record: z.string().describe("The line (JSONL) or record (conversations[2], memory <id>) that failed."),
  field: z.string().optional().describe("The field within it."),
  message: z.string(),
});

export const ZImportCounts = z.object({
  conversations: z.number().int().describe("Conversations created or given new turns."),
  turns: z.number().int().describe("Turns written."),
  memories: z.number().int().describe("Memories written."),
  skipped: z.number().int().describe("Records already imported with nothing new."),
  failed: z.number().int().describe("Records not imported: each has one or more defects in problems (a record is imported whole or not at all)."),
});

/** cancelled: stopped by POST /imports/{id}/cancel between two transactions; counts say what was written. */
export const IMPORT_STATUSES = ["pending", "running", "done", "failed", "cancelled"] as const;

export const ZImportJob = z.object({
  id: z.string(),
  format: ZImportFormat,
  label: z.string(),
  dry_run: z.boolean().describe("true: counts say what would change; nothing was written."),
  status: z.enum(IMPORT_STATUSES),
  total: z.number().int().describe("Records to go through (known once the source is read; 0 before)."),
  processed: z.number().int(),
  counts: ZImportCounts,
  problems: z.array(ZImportProblem).describe("The first 50 problems: every defect of a record that was left out (record, field, reason), not only its first."),
  unrepresented: z
    .record(z.string(), z.number().int())
    .describe("What the source holds that Memscope keeps only in a turn's metadata or leaves out, counted by reason (letta_image, chatgpt_citation, ...). {} when nothing."),
  error: z.string().nullable().describe("Why the whole job stopped (a record's problem is in problems)."),
  actor: z.string().nullable().describe("Who started it: an account's email or an API key's name (null for jobs from before this was kept)."),
  created_at: z.string(),
  updated_at: z.string(),
  finished_at: z.string().nullable(),
});
export type ImportJob = z.infer<typeof ZImportJob>;

export const ZImportJobList = z.object({ data: z.array(ZImportJob) });

export const ZDifyApps = z.object({
  configured: z.boolean().describe("Whether MEMSCOPE_DIFY_DATABASE_URL is set."),
  error: z.string().nullable().describe("Why the database could not be read."),
  data: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      mode: z.string(),
      conversations: z.number().int(),
      messages: z.number().int(),
      last_import_at: z.string().nullable().describe("The newest message time already imported (the cursor), or null."),
    }),
  ),
});
export type DifyApps = z.infer<typeof ZDifyApps>;

/** POST /imports/upload: the file's bytes are the body; these say what to do with them. */
export const ZImportUploadQuery = z
  .object({
    format: z.enum(UPLOAD_FORMATS).optional().describe("Detected from the file when omitted (zip, SQLite or JSON, and its shape)."),
    file_name: z.string().trim().max(500).optional().describe("Shown as the job's label."),
    app_id: z.string().trim().min(1).max(200).optional().describe("The Memscope app id imported records get (default: the source's name)."),
    end_user_id: ZUserIdInput.optional().describe("The end user (and memory owner) of records whose source names none."),
    namespace_user_index: z.coerce.number().int().min(-20).max(20).optional().describe("langgraph: which namespace segment names the user (default -1, the last)."),
    dry_run: z.enum(["true", "false"]).default("false").transform((v) => v === "true").describe("true: read and check everything, write nothing."),
  })
  .strict();
export type ImportUploadQuery = z.infer<typeof ZImportUploadQuery>;

/** The CLI's and the page's closing line. */
export function summaryLine(c: z.infer<typeof ZImportCounts>, dryRun = false, unrepresented: Record<string, number> = {}): string {
  const verb = dryRun ? "would import" : "imported";
  const kept = Object.entries(unrepresented)
    .filter(([, n]) => n > 0)
    .sort(([a], [b]) => a.localeCompare(b));
  const note = kept.length ? `; kept only in metadata or left out: ${kept.map(([k, n]) => `${k} ${n}`).join(", ")}` : "";
  return `${verb}: ${c.conversations} conversations, ${c.turns} turns, ${c.memories} memories; skipped ${c.skipped}; failed ${c.failed}${note}`;
}
