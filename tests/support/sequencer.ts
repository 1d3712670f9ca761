import path from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

// Longest files first, so that the workers finish together instead of one running a
// 2-minute file alone at the end. Vitest's own order is by its cache of past durations, which a
// clean CI checkout does not have: it then runs larger files first, and the slowest file
// (pages.test.ts, short but 52 browser checks) started last. Seconds per file, hooks included,
// from the timing reporter (tests/support/timing-reporter.ts) of the fresh-clone CI run of
// 2026-11-29 19:29 (unit and server phases, files of 10 s and more); a file not listed keeps
// Vitest's order after these. Refresh it when a file's cost changes much: the table of
// 2026-11-26 had no hostile-uploads (291 s), so that file started 1 026 s into the server
// phase and two workers sat idle for the last 95 s (docs/benchmarks.md section 61).
// `node scripts/sequencer-seconds.mjs <npm test's temporary folder>` prints the rows.
const SECONDS: Record<string, number> = {
  "tests/api/hostile-uploads.test.ts": 291,
  "tests/browser/conversation-pages.test.ts": 174,
  "tests/api/embeddings.test.ts": 174,
  "tests/browser/auth-flow.test.ts": 147,
  "tests/browser/pages.test.ts": 147,
  "tests/api/memory-as-of.test.ts": 135,
  "tests/browser/ui-bugs.test.ts": 118,
  "tests/unit/tokens.test.ts": 112,
  "tests/api/imports-sources.test.ts": 111,
  "tests/api/evals.test.ts": 108,
  "tests/browser/memories-hydration.test.ts": 98,
  "tests/api/error-answers.test.ts": 97,
  "tests/browser/import.test.ts": 95,
  "tests/browser/incidents.test.ts": 89,
  "tests/api/privacy-findings.test.ts": 88,
  "tests/browser/axe-seeded-conversations.test.ts": 81,
  "tests/api/auth-trust.test.ts": 76,
  "tests/unit/db-memory-settings.test.ts": 76,
  "tests/browser/memories.test.ts": 73,
  "tests/api/memory-curation.test.ts": 72,
  "tests/api/privacy-text.test.ts": 71,
  "tests/browser/provenance-tables.test.ts": 70,
  "tests/api/privacy.test.ts": 69,
  "tests/api/privacy-retention.test.ts": 68,
  "tests/api/project-isolation.test.ts": 66,
  "tests/api/auth-api.test.ts": 65,
  "tests/api/malformed-input.test.ts": 64,
  "tests/api/auth-upgrade.test.ts": 63,
  "tests/browser/page-defects.test.ts": 62,
  "tests/api/two-instances.test.ts": 59,
  "tests/browser/inspect.test.ts": 53,
  "tests/browser/replay.test.ts": 53,
  "tests/api/agentscope.test.ts": 53,
  "tests/browser/privacy.test.ts": 52,
  "tests/unit/db-open.test.ts": 51,
  "tests/unit/node-memory.test.ts": 50,
  "tests/browser/evals.test.ts": 50,
  "tests/api/imports-as-written.test.ts": 50,
  "tests/api/evals-providers.test.ts": 49,
  "tests/browser/page-defects-40.test.ts": 48,
  "tests/api/privacy-kill.test.ts": 46,
  "tests/api/project-scoped-ids.test.ts": 45,
  "tests/browser/curation-flows.test.ts": 41,
  "tests/api/incidents.test.ts": 38,
  "tests/browser/agentscope-inspect.test.ts": 37,
  "tests/api/memory-user-index.test.ts": 32,
  "tests/api/framework-windows.test.ts": 29,
  "tests/api/memory-search-paths.test.ts": 29,
  "tests/api/otel-sdk-node.test.ts": 29,
  "tests/api/privacy-physical.test.ts": 28,
  "tests/api/imports.test.ts": 26,
  "tests/api/auth-access-matrix.test.ts": 25,
  "tests/unit/search-memories-many.test.ts": 25,
  "tests/api/mcp.test.ts": 25,
  "tests/api/data-folder-lock.test.ts": 24,
  "tests/api/otel-limits.test.ts": 24,
  "tests/browser/framework-inspect.test.ts": 23,
  "tests/api/replay.test.ts": 22,
  "tests/api/profiles.test.ts": 22,
  "tests/unit/bulk-job-heap.test.ts": 21,
  "tests/api/auth-endpoints.test.ts": 21,
  "tests/api/auth-access.test.ts": 21,
  "tests/api/memory-dedupe-chat.test.ts": 21,
  "tests/api/imports-dify-db.test.ts": 21,
  "tests/api/server-process.test.ts": 19,
  "tests/api/otel-capture.test.ts": 19,
  "tests/api/memories.test.ts": 19,
  "tests/unit/project-scoped-ids-migration.test.ts": 19,
  "tests/api/imports-projects.test.ts": 18,
  "tests/api/api-embedded.test.ts": 18,
  "tests/unit/retention-scheduler.test.ts": 17,
  "tests/unit/framework-windows.test.ts": 17,
  "tests/api/node-memory.test.ts": 16,
  "tests/unit/parse-upload-off-thread.test.ts": 16,
  "tests/api/retention-two-instances.test.ts": 15,
  "tests/api/api-postgres.test.ts": 15,
  "tests/unit/otel-captured-messages.test.ts": 14,
  "tests/api/otel-logs.test.ts": 13,
  "tests/unit/otel-capture-order.test.ts": 13,
  "tests/unit/parse-timestamp.test.ts": 12,
  "tests/api/hostile-input.test.ts": 11,
  "tests/client/invalidation.test.ts": 11,
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
