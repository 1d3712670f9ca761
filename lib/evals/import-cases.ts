import "server-only";
import type { ProjectSql } from "../db/project-sql";
import { parseCsvCases, parseJsonlCases } from "./parse-cases";
import type { CaseImport } from "./schemas";
import { addCases, requireSet } from "./sets-db";
import { importBenchmark } from "./import-benchmark";

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
