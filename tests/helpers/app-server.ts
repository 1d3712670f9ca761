import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { freePort } from "./free-port";
import { freshDataDir, seededDataDir } from "./fresh-data-dir";
import { LOADED_MACHINE_TIMEOUT_MS } from "./loaded-machine";
import { removeDir } from "./temp-dir";

// Starts the real production server (`next start`, built by `npm test` first) on a
// fresh data folder (removed on stop), a folder the caller owns (kept, so a second
// server can open it: restarts, model changes) or a DATABASE_URL.

export type AppServer = {
  url: string;
  dataDir: string | null;
  /** The server's process (a test may kill -9 it; stop() then only cleans up). */
  pid?: number;
  logs(): string;
  stop(): Promise<void>;
};

const ROOT = path.resolve(__dirname, "../..");

/** What a server takes from the test process: the system's basics and the test run's own files. */
const INHERITED = ["PATH", "HOME", "TMPDIR", "TMP", "TEMP", "LANG", "LC_ALL", "TZ", "MEMSCOPE_NEXT_DIST_DIR", "MEMSCOPE_STATUS_LOG"];

function inherited(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of INHERITED) if (process.env[k] !== undefined) out[k] = process.env[k]!;
  return out;
}

/**
 * The Node that runs a server: MEMSCOPE_TEST_EMBEDDED_SERVER_NODE for one on a data folder (CI
 * sets it to Node 24, .ci/node24.sh, while the tests and the servers on PostgreSQL run on Node 20,
 * so both Nodes run the product in one run), else the test process's own.
 */
export function serverNode(databaseUrl?: string): string {
  return (!databaseUrl && process.env.MEMSCOPE_TEST_EMBEDDED_SERVER_NODE) || process.execPath;
}

export async function startAppServer(
  opts: {
    databaseUrl?: string;
    dataDir?: string;
    /** A database with the demo seed: on a folder of its own, a copy of one seeded once per run. */
    seed?: boolean;
    /** With `seed`: start on an empty folder, so that this server seeds it itself. */
    seedAtStart?: boolean;
    env?: Record<string, string>;
    /** The /ready status that means "started" (default 200; 503 for a server whose database is down). */
    readyStatus?: number;
  } = {},
): Promise<AppServer> {
  if (!fs.existsSync(path.join(ROOT, process.env.MEMSCOPE_NEXT_DIST_DIR || ".next", "BUILD_ID"))) {
    throw new Error("No production build: run `npm test` (it builds first) or `npx next build`.");
  }
  const port = await freePort();
  const ownsDir = !opts.databaseUrl && !opts.dataDir;
  const dataDir = opts.databaseUrl ? null : (opts.dataDir ?? (opts.seed && !opts.seedAtStart ? await seededDataDir() : await freshDataDir()));
  // A clean environment, as a deployment would have: not Vitest's. Vitest sets TEST=true, and
  // better-auth took that for "skip every origin and CSRF check". Database, key and AI endpoints
  // come from `opts` only, never from the shell running the tests.
  const env: NodeJS.ProcessEnv = {
    ...inherited(),
    PORT: String(port),
    NODE_ENV: "production",
    NEXT_TELEMETRY_DISABLED: "1",
    MEMSCOPE_SEED: opts.seed ? "1" : "0",
    // Every answer is checked against its route's response schema; a mismatch is a 500 here.
    MEMSCOPE_CHECK_RESPONSES: "1",
    // Node's on-disk code cache (22.1 and later; Node 20 ignores it): a server start loads the
    // same build's chunks as the last, and with the cache a start on Node 24 took 2.14 CPU-seconds
    // instead of 2.43 (bench/diag/server-start-cpu.mjs, docs/benchmarks.md section 74). Keyed by
    // each file's contents and Node's version; a new build or Node is compiled afresh.
    NODE_COMPILE_CACHE: path.join(os.tmpdir(), "memscope-node-compile-cache"),
    ...opts.env,
  };
  if (opts.databaseUrl) env.DATABASE_URL = opts.databaseUrl;
  else env.MEMSCOPE_DATA_DIR = dataDir!;

  // Test servers run V8's baseline WebAssembly compiler only. Every server compiles PGlite's
  // 10 MB module (and tiktoken's) anew, and the optimizing tier's background compiles cost about
  // 1 CPU-second a start, more than the queries of a test suite win back. Same code, same
  // answers; `npm start` runs the same way (scripts/serve.mjs's flags in package.json).
  // Still so for the shared servers, which live for many files (shared-app.ts): one worker's two
  // shared servers over memories, context, imports, profiles and provenance (84 tests, both
  // kinds) used 49.4 CPU-seconds with --liftoff-only and 55.6 without (embedded 33.6 vs 37.2,
  // PostgreSQL 15.9 vs 18.5; load 25-38; docs/benchmarks.md section 36).
  const child: ChildProcess = spawn(serverNode(opts.databaseUrl), ["--liftoff-only", path.join(ROOT, "scripts", "serve.mjs")], {
    cwd: ROOT,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let log = "";
  child.stdout!.on("data", (d) => (log += d));
  child.stderr!.on("data", (d) => (log += d));
  const url = `http://127.0.0.1:${port}`;

  // A hang guard, not a speed check: a fresh folder's first start (initdb and every migration)
  // takes 30 s alone at load 20, and at load 25-30 a seeded start (the run's seeded template) ran
  // past 90 s with its log showing it nearly ready. Half the hooks' time-out (vitest.config.ts):
  // a hook may hold two starts, and a give-up here reports the server's log.
  const deadline = Date.now() + LOADED_MACHINE_TIMEOUT_MS / 2;
  for (;;) {
    if (child.exitCode !== null) {
      if (dataDir && ownsDir) removeDir(dataDir);
      throw new Error(`server exited (${child.exitCode}):\n${log}`);
    }
    try {
      const r = await fetch(`${url}/api/v1/ready`);
      if (r.status === (opts.readyStatus ?? 200)) break;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once("exit", r));
        child.kill("SIGKILL");
        await exited;
      }
      // The folder it owned goes too: on tmpfs (tests/support/test-tmpdir.ts) a left folder is memory.
      if (dataDir && ownsDir) removeDir(dataDir);
      throw new Error(`server did not become ready:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }

  return {
    url,
    dataDir,
    pid: child.pid,
    logs: () => log,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once("exit", r));
        child.kill("SIGTERM");
        await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
        if (child.exitCode === null) {
          child.kill("SIGKILL");
          await exited;
        }
      }
      if (dataDir && ownsDir) removeDir(dataDir);
    },
  };
}
