import fs from "node:fs";
import type { Reporter, TestModule } from "vitest/node";

// Where npm test's time goes, per file: wall time from the moment a worker takes the file up
// to its end, hooks (server and browser starts in beforeAll/afterAll) and imports included.
// The JSON reporter's file times span the tests only. Written to MEMSCOPE_TIMINGS (run-tests
// sets it); the slowest files are the head of the list tests/support/sequencer.ts runs first.

type Row = { file: string; worker_start_s: number; end_s: number; wall_s: number; tests_s: number; collect_s: number; hooks_s: number };

export default class TimingReporter implements Reporter {
  private t0 = Date.now();
  private starts = new Map<string, number>();
  private rows: Row[] = [];

  onTestRunStart() {
    this.t0 = Date.now();
  }

  onTestModuleQueued(m: TestModule) {
    this.starts.set(m.moduleId, Date.now());
  }

  onTestModuleEnd(m: TestModule) {
    const d = m.diagnostic();
    const end = Date.now();
    const queued = this.starts.get(m.moduleId) ?? end;
    let tests = 0;
    for (const t of m.children.allTests()) tests += t.diagnostic()?.duration ?? 0;
    const file = m.moduleId.replace(`${process.cwd()}/`, "");
    this.rows.push({
      file,
      worker_start_s: round((queued - this.t0) / 1000),
      end_s: round((end - this.t0) / 1000),
      wall_s: round((end - queued) / 1000),
      tests_s: round(tests / 1000),
      collect_s: round((d.environmentSetupDuration + d.prepareDuration + d.collectDuration + d.setupDuration) / 1000),
      // Module duration (tests and hooks) minus the tests: beforeAll/afterAll/beforeEach.
      hooks_s: round(Math.max(0, d.duration - tests) / 1000),
    });
  }

  onTestRunEnd() {
    const out = process.env.MEMSCOPE_TIMINGS;
    this.rows.sort((a, b) => b.wall_s - a.wall_s);
    if (out) fs.writeFileSync(out, JSON.stringify({ total_s: round((Date.now() - this.t0) / 1000), files: this.rows }, null, 2));
    const sum = this.rows.reduce((s, r) => s + r.wall_s, 0);
    console.log(`\n[timings] ${this.rows.length} files, ${round(sum)} s of worker time in ${round((Date.now() - this.t0) / 1000)} s; slowest:`);
    for (const r of this.rows.slice(0, 10)) console.log(`  ${r.wall_s.toFixed(1).padStart(6)} s  ${r.file} (hooks ${r.hooks_s} s, import ${r.collect_s} s)`);
  }
}

const round = (n: number) => Math.round(n * 10) / 10;
