import path from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

// Longest files first, so that the workers finish together instead of one running a
// 2-minute file alone at the end. Vitest's own order is by its cache of past durations, which a
// clean CI checkout does not have: it then runs larger files first, and the slowest file
// (pages.test.ts, short but 52 browser checks) started last. Seconds per file, hooks included,
// from the timing reporter of a full run (tests/support/timing-reporter.ts prints them);
// a file not listed keeps Vitest's order after these.
const SECONDS: Record<string, number> = {
  "tests/browser/pages.test.ts": 117,
  "tests/api/embeddings.test.ts": 82,
  "tests/api/error-answers.test.ts": 43,
  "tests/api/memory-curation.test.ts": 40,
  "tests/api/auth-upgrade.test.ts": 39,
  "tests/api/two-instances.test.ts": 36,
  "tests/browser/conversation-pages.test.ts": 34,
  "tests/browser/auth-flow.test.ts": 34,
  "tests/browser/ui-bugs.test.ts": 34,
  "tests/api/auth-api.test.ts": 29,
  "tests/browser/memories.test.ts": 28,
  "tests/browser/provenance-tables.test.ts": 28,
  "tests/browser/inspect.test.ts": 27,
  "tests/browser/import.test.ts": 25,
  "tests/browser/curation-flows.test.ts": 20,
  "tests/api/memory-user-index.test.ts": 15,
  "tests/api/memories.test.ts": 15,
  "tests/api/project-isolation.test.ts": 14,
  "tests/api/auth-access.test.ts": 14,
  "tests/api/agentscope.test.ts": 13,
  "tests/api/malformed-input.test.ts": 13,
  "tests/unit/tokens.test.ts": 13,
  "tests/unit/node-memory.test.ts": 12,
  "tests/api/imports.test.ts": 12,
  "tests/browser/agentscope-inspect.test.ts": 12,
  "tests/api/node-memory.test.ts": 11,

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
