import fs from "node:fs";
import type { Reporter, TestModule } from "vitest/node";

// Where npm test's time goes, per file: wall time from the moment a worker takes the file up
// to its end, hooks (server and browser starts in beforeAll/afterAll) and imports included.
// The JSON reporter's file times span the tests only. Written to MEMSCOPE_TIMINGS (run-tests
// sets it); the slowest files are the head of the list tests/support/sequencer.ts runs first.

// `postgres_tests_s`: the part of tests_s spent in tests named for the "postgres" database kind
// (describe.each(DATABASE_KINDS) names them "... on postgres"), so npm test can tell the API
// suites' time on PGlite from their time on PostgreSQL. `cpu_s`: the CPU-seconds the file cost its
// worker and the child processes it waited for (tests/support/file-cpu.ts; not the servers and
// browsers it started), null when the file's setup did not run.
type Row = {
  file: string;
  worker_start_s: number;
  end_s: number;
  wall_s: number;
  tests_s: number;
  postgres_tests_s: number;
  collect_s: number;
  hooks_s: number;
  cpu_s: number | null;
};

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
    let postgres = 0;
    for (const t of m.children.allTests()) {
      const ms = t.diagnostic()?.duration ?? 0;
      tests += ms;
      if (/\bpostgres(ql)?\b/i.test(t.fullName)) postgres += ms;
    }
    const file = m.moduleId.replace(`${process.cwd()}/`, "");
    this.rows.push({
      file,
      worker_start_s: round((queued - this.t0) / 1000),
      end_s: round((end - this.t0) / 1000),
      wall_s: round((end - queued) / 1000),
      tests_s: round(tests / 1000),
      postgres_tests_s: round(postgres / 1000),
      collect_s: round((d.environmentSetupDuration + d.prepareDuration + d.collectDuration + d.setupDuration) / 1000),
      // Module duration (tests and hooks) minus the tests: beforeAll/afterAll/beforeEach.
      hooks_s: round(Math.max(0, d.duration - tests) / 1000),
      cpu_s: m.meta().cpu_s ?? null,
    });
  }

  onTestRunEnd() {
    const out = process.env.MEMSCOPE_TIMINGS;
    this.rows.sort((a, b) => b.wall_s - a.wall_s);
    if (out) fs.writeFileSync(out, JSON.stringify({ total_s: round((Date.now() - this.t0) / 1000), files: this.rows }, null, 2));
    // npm test prints the run's 20 slowest files across its phases (scripts/run-tests.mjs).
    const sum = this.rows.reduce((s, r) => s + r.wall_s, 0);
    console.log(`\n[timings] ${this.rows.length} files, ${round(sum)} s of worker time in ${round((Date.now() - this.t0) / 1000)} s`);
  }
}

const round = (n: number) => Math.round(n * 10) / 10;
