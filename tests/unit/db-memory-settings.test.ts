import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_PGLITE_SHARED_BUFFERS, PGLITE_STATISTICS_TARGET, readDbConfig } from "@/lib/db/db-config";
import { openDatabase } from "@/lib/db/open-database";
import { LOADED_MACHINE_TIMEOUT_MS } from "../helpers/loaded-machine";
import { suiteTempDirs } from "../helpers/temp-dir";

// The embedded database's memory settings (issue 21, part 8; figures in docs/benchmarks.md):
// a smaller buffer pool, and a new folder's initdb in a child process.
//
// One database for the file (each open of a new folder migrates it: 2-3 CPU-seconds): made by
// lib/db/pglite-initdb.mjs with a 64MB pool, then opened with 32MB, so the pool a test reads is
// the one applied at the open, not the one initdb wrote. The child gets this process's WebAssembly
// compiler flags, as open-database.ts passes them (Vitest's workers run --liftoff-only): initdb's
// CPU 9.9 -> 5.9 s, the same folder (docs/benchmarks.md section 53).

/** An environment of only these variables (ProcessEnv's NODE_ENV is not one a config reads). */
const env = (vars: Record<string, string>) => vars as unknown as NodeJS.ProcessEnv;

const fresh = suiteTempDirs(afterAll);

const made = {} as { dataDir: string; db: Awaited<ReturnType<typeof openDatabase>> };
beforeAll(async () => {
  made.dataDir = fresh("initdb");
  const wasmFlags = process.execArgv.filter((a) => /^--(liftoff|no-liftoff|wasm)/.test(a));
  execFileSync(process.execPath, [...wasmFlags, path.resolve("lib/db/pglite-initdb.mjs"), made.dataDir, "64MB"], { timeout: 300_000 });
  made.db = await openDatabase({ kind: "pglite", dataDir: made.dataDir, sharedBuffers: "32MB" });
}, LOADED_MACHINE_TIMEOUT_MS);
afterAll(async () => {
  await made.db?.close();
});

describe("MEMSCOPE_PGLITE_SHARED_BUFFERS", () => {
  it("defaults to 64MB and takes a size in kB, MB or GB", () => {
    expect(DEFAULT_PGLITE_SHARED_BUFFERS).toBe("64MB");
    expect(readDbConfig(env({ MEMSCOPE_DATA_DIR: "/x" }))).toMatchObject({ kind: "pglite", sharedBuffers: "64MB" });
    expect(readDbConfig(env({ MEMSCOPE_DATA_DIR: "/x", MEMSCOPE_PGLITE_SHARED_BUFFERS: " 256MB " }))).toMatchObject({ sharedBuffers: "256MB" });
    expect(readDbConfig(env({ MEMSCOPE_DATA_DIR: "/x", MEMSCOPE_PGLITE_SHARED_BUFFERS: "1GB" }))).toMatchObject({ sharedBuffers: "1GB" });
    expect(readDbConfig(env({ MEMSCOPE_DATA_DIR: "/x", MEMSCOPE_PGLITE_SHARED_BUFFERS: "2048kB" }))).toMatchObject({ sharedBuffers: "2048kB" });
  });

  it("refuses a value that is not a size from 1MB to 1GB, naming the variable", () => {
    for (const bad of ["lots", "64", "0MB", "512kB", "2GB", "64 mb"]) {
      expect(() => readDbConfig(env({ MEMSCOPE_PGLITE_SHARED_BUFFERS: bad })), bad).toThrow(/MEMSCOPE_PGLITE_SHARED_BUFFERS/);
    }
  });

  it("is the buffer pool the embedded database runs with, applied at every open (not only by initdb)", async () => {
    const [{ shared_buffers }] = await made.db.sql.query<{ shared_buffers: string }>(`SHOW shared_buffers`);
    expect(shared_buffers).toBe("32MB");
  });
});

// ANALYZE copies 300 rows per unit of statistics target into the WASM memory, which never shrinks.
describe("the embedded database's ANALYZE sample", () => {
  it("runs with default_statistics_target 10 (3 000 sampled rows), whatever PostgreSQL's default", async () => {
    expect(PGLITE_STATISTICS_TARGET).toBe(10);
    const [{ default_statistics_target }] = await made.db.sql.query<{ default_statistics_target: string }>(`SHOW default_statistics_target`);
    expect(default_statistics_target).toBe("10");
  });
});

describe("initdb in a child process", () => {
  it("lib/db/pglite-initdb.mjs creates a database folder that opens and migrates", async () => {
    expect(fs.existsSync(path.join(made.dataDir, "PG_VERSION"))).toBe(true);
    const [{ n }] = await made.db.sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM _prisma_migrations`);
    expect(n).toBeGreaterThan(0);
  });
});
