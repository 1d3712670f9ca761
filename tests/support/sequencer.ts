import path from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

// Longest files first, so that the workers finish together instead of one running a
// 2-minute file alone at the end. Vitest's own order is by its cache of past durations, which a
// clean CI checkout does not have: it then runs larger files first, and the slowest file
// (pages.test.ts, short but 52 browser checks) started last. Seconds per file, hooks included,
// from the timing reporter (tests/support/timing-reporter.ts) of the fresh-clone CI run of
// 2026-11-29 23:04 (b7e815d; unit and server phases, files of 10 s and more); a file not listed keeps
// Vitest's order after these. Refresh it when a file's cost changes much: the table of
// 2026-11-26 had no hostile-uploads (291 s), so that file started 1 026 s into the server
// phase and two workers sat idle for the last 95 s (docs/benchmarks.md section 61).
// `node scripts/sequencer-seconds.mjs <npm test's temporary folder>` prints the rows. The nine
// browser files moved to the shared server with POST /project/demo (pages, memories-hydration,
// memories, ui-bugs, provenance-tables, page-defects, page-defects-40, evals, curation-flows) have
// their row scaled by their after/before worker time in docs/benchmarks.md section 73 (load 24-42).
const SECONDS: Record<string, number> = {
  "tests/api/hostile-uploads.test.ts": 310, // less a server start and a database on PostgreSQL (section 74)
  "tests/api/embeddings.test.ts": 226,
  "tests/api/memory-as-of.test.ts": 173,
  "tests/api/imports-sources.test.ts": 158,
  "tests/api/evals.test.ts": 157,
  "tests/browser/pages.test.ts": 200,
  "tests/browser/memories-hydration.test.ts": 365,
  "tests/browser/conversation-pages.test.ts": 127,
  "tests/api/error-answers.test.ts": 110,
  "tests/unit/tokens.test.ts": 84, // 109 on that CI; a quarter of its CPU cut since (docs/benchmarks.md section 75)
  "tests/api/memory-curation.test.ts": 93,
  "tests/api/privacy-text.test.ts": 92,
  "tests/browser/import.test.ts": 91,
  "tests/browser/page-defects.test.ts": 74,
  "tests/api/privacy-findings.test.ts": 90,
  "tests/browser/ui-bugs.test.ts": 52,
  "tests/browser/auth-flow.test.ts": 86,
  "tests/api/two-instances.test.ts": 82,
  "tests/browser/axe-seeded-conversations.test.ts": 76,
  "tests/api/project-scoped-ids.test.ts": 75,
  "tests/browser/incidents.test.ts": 72,
  "tests/unit/db-memory-settings.test.ts": 72,
  "tests/api/agentscope.test.ts": 70,
  "tests/api/auth-trust.test.ts": 68,
  "tests/browser/inspect.test.ts": 68,
  "tests/browser/memories.test.ts": 45,
  "tests/api/privacy.test.ts": 66,
  "tests/browser/replay.test.ts": 63,
  "tests/api/privacy-retention.test.ts": 58,
  "tests/unit/node-memory.test.ts": 50,
  "tests/browser/privacy.test.ts": 49,
  "tests/api/auth-api.test.ts": 49,
  "tests/api/malformed-input.test.ts": 49,
  "tests/browser/provenance-tables.test.ts": 46,
  "tests/browser/page-defects-40.test.ts": 66,
  "tests/unit/db-open.test.ts": 48,
  "tests/api/imports-as-written.test.ts": 48,
  "tests/api/project-isolation.test.ts": 45,
  "tests/api/privacy-kill.test.ts": 45,
  "tests/unit/search-memories-many.test.ts": 43,
  "tests/browser/evals.test.ts": 32,
  "tests/api/auth-upgrade.test.ts": 41,
  "tests/api/memory-user-index.test.ts": 40,
  "tests/api/incidents.test.ts": 37,
  "tests/api/evals-providers.test.ts": 36,
  "tests/browser/curation-flows.test.ts": 23,
  "tests/api/framework-windows.test.ts": 33,
  "tests/api/privacy-physical.test.ts": 27,
  "tests/api/auth-access-matrix.test.ts": 26,
  "tests/api/memory-search-paths.test.ts": 24,
  "tests/api/data-folder-lock.test.ts": 23,
  "tests/api/otel-sdk-node.test.ts": 23,
  "tests/api/imports.test.ts": 23,
  "tests/browser/agentscope-inspect.test.ts": 23,
  "tests/api/mcp.test.ts": 23,
  "tests/api/imports-projects.test.ts": 22,
  "tests/unit/bulk-job-heap.test.ts": 22,
  "tests/unit/otel-capture-order.test.ts": 22,
  "tests/api/auth-endpoints.test.ts": 22,
  "tests/unit/otel-captured-messages.test.ts": 21,
  "tests/unit/retention-scheduler.test.ts": 20,
  "tests/unit/framework-windows.test.ts": 20,
  "tests/api/server-process.test.ts": 20,
  "tests/api/memory-dedupe-chat.test.ts": 19,
  "tests/api/otel-limits.test.ts": 18,
  "tests/api/memories.test.ts": 18,
  "tests/unit/parse-upload-off-thread.test.ts": 17,
  "tests/api/otel-capture.test.ts": 17,
  "tests/api/auth-access.test.ts": 17,
  "tests/api/imports-dify-db.test.ts": 17,
  "tests/api/replay.test.ts": 16,
  "tests/api/node-memory.test.ts": 16,
  "tests/api/api-embedded.test.ts": 15,
  "tests/api/otel-logs.test.ts": 15,
  "tests/browser/framework-inspect.test.ts": 14,
  "tests/api/retention-two-instances.test.ts": 14,
  "tests/client/invalidation.test.ts": 14,
  "tests/api/hostile-input.test.ts": 14,
  "tests/api/api-postgres.test.ts": 12,
  "tests/unit/concurrent-search-postgres.test.ts": 11,
};

export default class LongestFirstSequencer extends BaseSequencer {
  async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const root = this.ctx.config.root;
    const weight = (f: TestSpecification) => SECONDS[path.relative(root, f.moduleId).split(path.sep).join("/")] ?? 0;
    // Stable: files of equal (or no) weight keep Vitest's order.
    return sorted.map((f, i) => ({ f, i, w: weight(f) })).sort((a, b) => b.w - a.w || a.i - b.i).map((x) => x.f);
  }
}
