import { z } from "zod";
import { MAX_IMPORT_BYTES, ZDifyApps, ZImportCreate, ZImportJob, ZImportJobList, ZImportUploadQuery } from "../../imports/schemas";
import { contract, pathId, ZPathUserId } from "../contract";

const tag = "imports";

export const createImport = contract({
  tag, method: "POST", path: "/imports", scope: "imports:write",
  summary: "Import a Dify Service API JSON file, a Mem0 export, OpenAI chat JSON/JSONL, or a Dify database app (incremental); runs in the background",
  description:
    "Answers 202 with the job at once; poll GET /imports/{id} for progress. Each conversation (and each memory) is written in its own transaction: all of it or none. " +
    "Records already imported (by the source's id) are skipped, or get only their new turns. dry_run: read and check, write nothing.",
  body: ZImportCreate, bodyLimit: MAX_IMPORT_BYTES + 1024 * 1024, response: ZImportJob, status: 202, errors: [404, 409, 422],
});

export const uploadImport = contract({
  tag, method: "POST", path: "/imports/upload", scope: "imports:write",
  summary: "Import an uploaded file: ChatGPT or Claude export, Letta agent file, OpenAI Agents SQLiteSession database, memory folder (zip), AgentScope workspace (zip), or the older formats",
  description:
    "The body is the file's bytes (Content-Type: application/octet-stream), up to 2 GiB; it is streamed to a temporary file, and ChatGPT's and Claude's conversations.json " +
    "(bare or in the export's zip) are read a conversation at a time, so memory stays bounded. Answers 202 with the job; the rest is as POST /imports. " +
    "Every bound of the import limits (README: unpacked size, zip entries, one entry's or one record's size, nesting depth, records, SQLite value size, " +
    "parse time and memory) is checked while the file is read, before the job starts: over one, 413 import_limit_exceeded naming it (details[0].field), nothing written.",
  query: ZImportUploadQuery,
  rawBody: { contentType: "application/octet-stream", description: "The file: JSON, JSONL, a zip of an export or a folder, or a SQLite database." },
  response: ZImportJob, status: 202, errors: [413, 415, 422],
});

export const listImports = contract({
  tag, method: "GET", path: "/imports", scope: "imports:read",
  summary: "The 20 newest import jobs",
  response: ZImportJobList,
});

export const getImport = contract({
  tag, method: "GET", path: "/imports/{id}", scope: "imports:read",
  summary: "An import job: status, progress, counts and the first problems",
  params: z.object({ id: pathId("Import") }), response: ZImportJob, errors: [404],
});

export const cancelImport = contract({
  tag, method: "POST", path: "/imports/{id}/cancel", scope: "imports:write",
  summary: "Stop a running import between two transactions; answers the job once it has stopped (status cancelled, counts: what was written)",
  description: "What the job wrote before it stopped stays (each conversation and memory is its own transaction). 409 when the job has already ended.",
  params: z.object({ id: pathId("Import") }), response: ZImportJob, errors: [404, 409],
});

export const listDifyApps = contract({
  tag, method: "GET", path: "/imports/dify-apps", scope: "imports:read",
  summary: "Apps of the Dify database at MEMSCOPE_DIFY_DATABASE_URL (read-only), with what was imported already",
  response: ZDifyApps,
});

const ZUserParams = z.object({ user_id: ZPathUserId });

export const exportMemoriesDir = contract({
  tag, method: "GET", path: "/users/{user_id}/memory-files/memories.zip", scope: "memories:read",
  summary: "A user's active memories as a /memories directory (zip), as Anthropic's memory tool keeps it",
  description: "memories/<user_id>/: a memory imported from such a folder goes back to its own file; the others to preferences.md, facts.md, patterns.md, skills.md, a list item each.",
  params: ZUserParams, produces: "application/zip", response: z.string(),
});

export const exportClaudeCodeMd = contract({
  tag, method: "GET", path: "/users/{user_id}/memory-files/MEMORY.md", scope: "memories:read",
  summary: "A user's active memories as Claude Code's MEMORY.md (one section per kind, a list item per memory)",
  params: ZUserParams, produces: "text/markdown", response: z.string(),
});

export const IMPORT_CONTRACTS = [exportMemoriesDir, exportClaudeCodeMd, createImport, uploadImport, listImports, getImport, cancelImport, listDifyApps];
