import path from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

// Longest files first, so that the workers finish together instead of one running a
// 2-minute file alone at the end. Vitest's own order is by its cache of past durations, which a
// clean CI checkout does not have: it then runs larger files first, and the slowest file
// (pages.test.ts, short but 52 browser checks) started last. Seconds per file, hooks included,
// from the timing reporter (tests/support/timing-reporter.ts prints them) of CI's run of
// 2026-11-26 06:00-06:22 (unit and server phases, files of 10 s and more); a file not listed
// keeps Vitest's order after these. In the unit phase, which the server phase waits for, the
// PGlite and tiktoken files go first for the same reason.
const SECONDS: Record<string, number> = {
  "tests/browser/pages.test.ts": 187,
  "tests/api/embeddings.test.ts": 177,
  "tests/api/auth-api.test.ts": 160,
  "tests/api/memory-as-of.test.ts": 140,
  "tests/api/memory-curation.test.ts": 124,
  "tests/browser/conversation-pages.test.ts": 114,
  "tests/browser/auth-flow.test.ts": 113,
  "tests/browser/ui-bugs.test.ts": 102,
  "tests/unit/tokens.test.ts": 91,
  "tests/browser/import.test.ts": 91,
  "tests/unit/db-open.test.ts": 90,
  "tests/api/error-answers.test.ts": 82,
  "tests/browser/axe-seeded-conversations.test.ts": 80,
  "tests/browser/memories.test.ts": 77,
  "tests/browser/provenance-tables.test.ts": 72,
  "tests/api/auth-trust.test.ts": 69,
  "tests/api/privacy-retention.test.ts": 67,
  "tests/api/privacy.test.ts": 65,
  "tests/browser/page-defects.test.ts": 59,
  "tests/browser/inspect.test.ts": 59,
  "tests/api/evals.test.ts": 54,
  "tests/api/malformed-input.test.ts": 53,
  "tests/api/two-instances.test.ts": 52,
  "tests/api/memories.test.ts": 52,
  "tests/browser/replay.test.ts": 50,
  "tests/unit/db-memory-settings.test.ts": 50,
  "tests/api/privacy-text.test.ts": 46,
  "tests/api/project-isolation.test.ts": 44,
  "tests/browser/curation-flows.test.ts": 42,
  "tests/api/auth-upgrade.test.ts": 42,
  "tests/unit/node-memory.test.ts": 42,
  "tests/browser/privacy.test.ts": 41,
  "tests/api/agentscope.test.ts": 38,
  "tests/api/privacy-physical.test.ts": 36,
  "tests/api/auth-endpoints.test.ts": 36,
  "tests/api/data-folder-lock.test.ts": 36,
  "tests/api/project-scoped-ids.test.ts": 36,
  "tests/api/auth-access-matrix.test.ts": 34,
  "tests/api/profiles.test.ts": 34,
  "tests/api/memory-user-index.test.ts": 34,
  "tests/api/memory-search-paths.test.ts": 33,
  "tests/api/replay.test.ts": 33,
  "tests/api/node-memory.test.ts": 32,
  "tests/api/provenance.test.ts": 31,
  "tests/api/read-only-retrieval.test.ts": 30,
  "tests/api/otel-capture.test.ts": 30,
  "tests/api/imports.test.ts": 30,
  "tests/api/server-process.test.ts": 27,
  "tests/api/imports-dify-db.test.ts": 26,
  "tests/browser/evals.test.ts": 26,
  "tests/api/context.test.ts": 25,
  "tests/browser/agentscope-inspect.test.ts": 23,
  "tests/api/privacy-kill.test.ts": 21,
  "tests/api/cross-user.test.ts": 21,
  "tests/api/mcp.test.ts": 20,
  "tests/api/approximate-counts.test.ts": 19,
  "tests/api/memory-dedupe-chat.test.ts": 16,
  "tests/api/api-embedded.test.ts": 16,
  "tests/api/api-postgres.test.ts": 16,
  "tests/api/imports-projects.test.ts": 16,
  "tests/api/retention-two-instances.test.ts": 15,
  "tests/api/auth-access.test.ts": 14,
  "tests/unit/project-scoped-ids-migration.test.ts": 11,
  "tests/client/invalidation.test.ts": 11,
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
