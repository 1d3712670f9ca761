import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { freePort, now, ROOT } from "./common";
import { withPgClient } from "./pg-client";
import { assertBuilt } from "./start-server-dist";

// The production server as `npm start` runs it (scripts/serve.mjs, one process whose RSS is
// the server's), and a fresh PostgreSQL database to point it at: for benchmarks that measure
// the server process itself (bench/load.ts, bench/memory-at-rest.ts).

export type Server = { base: string; pid: number; stop(): Promise<void>; log(): string };

/** `nodeArgs`: more flags for the server's node (a profile: --cpu-prof, which NODE_OPTIONS refuses). */
export async function startServer(env: Record<string, string>, nodeArgs: string[] = []): Promise<Server> {
  assertBuilt();
  const port = await freePort();
  // The flag `npm start` gives: WebAssembly on V8's baseline compiler only (docs/benchmarks.md,
  // section 9). BENCH_LIFTOFF=0 runs V8's default tiers instead, for the with/without comparison.
  const wasm = process.env.BENCH_LIFTOFF === "0" ? [] : ["--liftoff-only"];
  const child: ChildProcess = spawn(process.execPath, [...wasm, ...nodeArgs, path.join(ROOT, "scripts", "serve.mjs")], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: "", MEMSCOPE_SEED: "0", PORT: String(port), NODE_ENV: "production", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  const keep = (b: Buffer) => (out = (out + b.toString()).slice(-20_000));
  child.stdout!.on("data", keep);
  child.stderr!.on("data", keep);
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  const base = `http://127.0.0.1:${port}`;
  // BENCH_START_TIMEOUT (s): a loaded shared machine can take longer than two minutes to start a server.
  const deadline = now() + Number(process.env.BENCH_START_TIMEOUT || 120) * 1000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited ${child.exitCode}:\n${out}`);
    const ok = await fetch(`${base}/api/v1/ready`).then((r) => r.ok, () => false);
    if (ok) break;
    if (now() > deadline) throw new Error(`server not ready:\n${out}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  return {
    base,
    pid: child.pid!,
    log: () => out,
    async stop() {
      if (child.exitCode !== null) return;
      child.kill("SIGTERM");
      const t = setTimeout(() => child.kill("SIGKILL"), 5000);
      await exited;
      clearTimeout(t);
    },
  };
}

export function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) / 1024 : NaN;
}


/** A new database with pgvector on the PostgreSQL server `serverUrl` names; `drop` removes it. */
export async function freshPostgres(serverUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  // Random, not the clock: two benches started in the same millisecond must not share a database.
  const name = `memscope_bench_${randomBytes(5).toString("hex")}`;
  const admin = (url: string, sql: string) => withPgClient(url, (c) => c.query(sql));
  await admin(serverUrl, `CREATE DATABASE ${name}`);
  const u = new URL(serverUrl);
  u.pathname = `/${name}`;
  await admin(u.toString(), "CREATE EXTENSION IF NOT EXISTS vector");
  return { url: u.toString(), drop: async () => void (await admin(serverUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)) };
}

