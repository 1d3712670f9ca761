/**
 * The time-out of a test that checks correctness through slow work (PGlite's initdb and
 * migrations in process, tiktoken over megabytes, thousands of writes). It is a hang guard, not
 * a speed check: the unit suites run niced beside `next build`, and on a shared 2-core machine
 * at load 20-37 such tests took 90-195 s where they take 5-20 s alone, past Vitest's 120 s.
 * Speed is measured by the benchmark scripts (bench/), never by a test's time-out.
 */
export const LOADED_MACHINE_TIMEOUT_MS = 600_000;
