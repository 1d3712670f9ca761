import "server-only";
import fs from "node:fs";
import { removeUpload } from "../imports/upload-file";
import type { ProjectSql } from "../db/project-sql";
import { parseCsvCases, parseJsonlCases } from "./parse-cases";
import type { BenchmarkUploadQuery, CaseImport } from "./schemas";
import { addCases, requireSet } from "./sets-db";
import { importBenchmark, type ImportSummary } from "./import-benchmark";
import { withBulkJobHeap } from "../process/bulk-job-heap";


/** POST /evals/sets/{id}/import: a case file, or a benchmark file with its conversations and memories. */
export async function importCases(sql: ProjectSql, setId: string, input: CaseImport): Promise<ImportSummary> {
  // An unknown set is a 404 whatever the file holds.
  await requireSet(sql, setId);
  if (input.format === "jsonl" || input.format === "csv") {
    const cases = input.format === "jsonl" ? parseJsonlCases(input.content) : parseCsvCases(input.content);
    const none = { conversations: 0, turns: 0, memories: 0, defects: [], defect_count: 0 };
    if (input.dry_run) return { cases: cases.length, skipped: 0, ...none, dry_run: true };
    const r = await addCases(sql, setId, cases);
    return { cases: r.data.length, skipped: r.skipped, ...none, dry_run: false };
  }
  return importBenchmark(sql, setId, { format: input.format, chunks: [input.content], userPrefix: input.user_prefix, extraction: input.extraction, dryRun: input.dry_run });
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
        dryRun: q.dry_run,
      }),
    );
  } finally {
    removeUpload(file);
  }
}
