import path from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

// Longest files first, so that the workers finish together instead of one running a
// 2-minute file alone at the end. Vitest's own order is by its cache of past durations, which a
// clean CI checkout does not have: it then runs larger files first, and the slowest file
// (pages.test.ts, short but 52 browser checks) started last. Seconds per file, hooks included,
// from the timing reporter (tests/support/timing-reporter.ts) of the fresh-clone CI run of
// 2026-11-30 05:26 (95fbe2f; unit and server phases, files of 10 s and more); a file not listed keeps
// Vitest's order after these. Refresh it when a file's cost changes much: the table of
// 2026-11-26 had no hostile-uploads (291 s), so that file started 1 026 s into the server
// phase and two workers sat idle for the last 95 s (docs/benchmarks.md section 61).
// `node scripts/sequencer-seconds.mjs <npm test's temporary folder>` prints the rows. The nine
// browser files moved to the shared server with POST /project/demo (pages, memories-hydration,
// memories, ui-bugs, provenance-tables, page-defects, page-defects-40, evals, curation-flows) have
// their row scaled by their after/before worker time in docs/benchmarks.md section 73 (load 24-42).
const SECONDS: Record<string, number> = {
  "tests/api/hostile-uploads.test.ts": 191,
  "tests/api/embeddings.test.ts": 168,
  "tests/browser/memories-hydration.test.ts": 102,
  "tests/browser/pages.test.ts": 59,
  "tests/unit/tokens.test.ts": 46,
  "tests/api/two-instances.test.ts": 43,
  "tests/browser/import.test.ts": 39,
  "tests/api/privacy-findings.test.ts": 38,
  "tests/api/error-answers.test.ts": 38,
  "tests/api/memory-as-of.test.ts": 34,
  "tests/api/auth-trust.test.ts": 33,
  "tests/unit/retention-scheduler.test.ts": 33,
  "tests/api/evals.test.ts": 33,
  "tests/browser/auth-flow.test.ts": 33,
  "tests/browser/incidents.test.ts": 32,
  "tests/unit/search-memories-many.test.ts": 31,
  "tests/api/privacy.test.ts": 30,
  "tests/browser/conversation-pages.test.ts": 30,
  "tests/unit/parse-upload-off-thread.test.ts": 30,
  "tests/unit/framework-windows.test.ts": 29,
  "tests/api/agentscope.test.ts": 29,
  "tests/api/project-isolation.test.ts": 28,
  "tests/api/malformed-input.test.ts": 28,
  "tests/api/imports-sources.test.ts": 27,
  "tests/browser/axe-seeded-conversations.test.ts": 27,
  "tests/api/privacy-retention.test.ts": 26,
  "tests/unit/db-memory-settings.test.ts": 26,
  "tests/browser/ui-bugs.test.ts": 26,
  "tests/browser/page-defects.test.ts": 25,
  "tests/browser/memories.test.ts": 24,
  "tests/unit/node-memory.test.ts": 23,
  "tests/api/imports-as-written.test.ts": 23,
  "tests/api/auth-api.test.ts": 21,
  "tests/browser/inspect.test.ts": 20,
  "tests/api/otel-sdk-node.test.ts": 20,
  "tests/api/auth-upgrade.test.ts": 19,
  "tests/api/privacy-kill.test.ts": 19,
  "tests/api/privacy-text.test.ts": 17,
  "tests/unit/db-open.test.ts": 17,
  "tests/api/project-scoped-ids.test.ts": 16,
  "tests/unit/otel-capture-order.test.ts": 16,
  "tests/api/memory-curation.test.ts": 16,
  "tests/unit/otel-captured-messages.test.ts": 16,
  "tests/unit/otlp-proto-off-thread.test.ts": 16,
  "tests/unit/bulk-job-heap.test.ts": 15,
  "tests/browser/replay.test.ts": 15,
  "tests/api/memory-user-index.test.ts": 15,
  "tests/browser/curation-flows.test.ts": 14,
  "tests/browser/privacy.test.ts": 14,
  "tests/browser/provenance-tables.test.ts": 14,
  "tests/api/framework-windows.test.ts": 13,
  "tests/browser/evals.test.ts": 12,
  "tests/browser/page-defects-40.test.ts": 12,
  "tests/unit/upload-limits.test.ts": 12,
  "tests/unit/incident-detect-read.test.ts": 12,
  "tests/api/imports.test.ts": 12,
  "tests/unit/memory-events-superseded-at.test.ts": 12,
  "tests/api/auth-access-matrix.test.ts": 11,
  "tests/api/evals-providers.test.ts": 11,
  "tests/unit/retry-contention.test.ts": 11,
  "tests/unit/concurrent-search-postgres.test.ts": 11,
  "tests/api/data-folder-lock.test.ts": 10,
  "tests/api/incidents.test.ts": 10,
  "tests/api/memory-search-paths.test.ts": 10,
  "tests/unit/otel-capture-ai-sdk.test.ts": 10,
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
