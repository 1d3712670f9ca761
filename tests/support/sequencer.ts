import path from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

// Longest files first, so that the two workers finish together instead of one running a
// 2-minute file alone at the end. Vitest's own order is by its cache of past durations, which a
// clean CI checkout does not have: it then runs larger files first, and the slowest file
// (pages.test.ts, short but 52 browser checks) started last. Seconds per file, hooks included,
// from the timing reporter of a full run (tests/support/timing-reporter.ts prints them);
// a file not listed keeps Vitest's order after these.
const SECONDS: Record<string, number> = {
  "tests/browser/pages.test.ts": 150,
  "tests/api/embeddings.test.ts": 130,
  "tests/api/error-answers.test.ts": 60,
  "tests/api/auth-api.test.ts": 60,
  "tests/api/two-instances.test.ts": 50,
  "tests/browser/ui-bugs.test.ts": 45,
  "tests/browser/conversation-pages.test.ts": 40,
  "tests/api/memory-curation.test.ts": 40,
  "tests/browser/memories.test.ts": 32,
  "tests/api/auth-upgrade.test.ts": 30,
  "tests/browser/provenance-tables.test.ts": 29,
  "tests/browser/auth-flow.test.ts": 28,
  "tests/browser/inspect.test.ts": 25,
  "tests/browser/import.test.ts": 20,
  "tests/browser/curation-flows.test.ts": 18,
  "tests/api/node-memory.test.ts": 17,
  "tests/api/agentscope.test.ts": 16,
  "tests/api/project-isolation.test.ts": 15,
  "tests/api/auth-access.test.ts": 15,
  "tests/api/data-folder-lock.test.ts": 14,
  "tests/unit/db-open.test.ts": 13,
  "tests/unit/node-memory.test.ts": 12,
  "tests/api/memories.test.ts": 12,
  "tests/api/imports.test.ts": 12,
  "tests/unit/tokens.test.ts": 11,
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
