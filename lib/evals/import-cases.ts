import "server-only";
import fs from "node:fs";
import { removeUpload } from "../imports/upload-file";
import type { ProjectSql } from "../db/project-sql";
import { parseCsvCases, parseJsonlCases } from "./parse-cases";
import type { BenchmarkUploadQuery, CaseImport } from "./schemas";
import { addCases, requireSet } from "./sets-db";
import { importBenchmark } from "./import-benchmark";
import { withBulkJobHeap } from "../server/bulk-job-heap";

export type ImportSummary = { cases: number; skipped: number; conversations: number; turns: number; memories: number };

/** POST /evals/sets/{id}/import: a case file, or a benchmark file with its conversations and memories. */
export async function importCases(sql: ProjectSql, setId: string, input: CaseImport): Promise<ImportSummary> {
  // An unknown set is a 404 whatever the file holds.
  await requireSet(sql, setId);
  if (input.format === "jsonl" || input.format === "csv") {
    const cases = input.format === "jsonl" ? parseJsonlCases(input.content) : parseCsvCases(input.content);
    const r = await addCases(sql, setId, cases);
    return { cases: r.data.length, skipped: r.skipped, conversations: 0, turns: 0, memories: 0 };
  }
  return importBenchmark(sql, setId, { format: input.format, chunks: [input.content], userPrefix: input.user_prefix, extraction: input.extraction });
}

/**
 * POST /evals/sets/{id}/import/upload: a LongMemEval or LoCoMo file of any size, saved to
 * `file` (lib/imports/upload-file.ts) and read from there 1 MiB at a time, as bytes: the scanner
 * (lib/streams/json-array-splitter.ts) works on UTF-8 bytes. The file is removed whatever happens.
 */
export async function importBenchmarkUpload(sql: ProjectSql, setId: string, file: string, q: BenchmarkUploadQuery): Promise<ImportSummary> {
  try {
    return await withBulkJobHeap(() =>
      importBenchmark(sql, setId, {
        format: q.format,
        // A fresh stream per pass: the file is checked whole before anything is written.
        chunks: () => fs.createReadStream(file, { highWaterMark: 1024 * 1024 }),
        userPrefix: q.user_prefix,
        extraction: q.extraction,
      }),
    );
  } finally {
    removeUpload(file);
  }
}
