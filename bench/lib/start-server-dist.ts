import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { freePort, now, ROOT, type Server } from "./common";

// Like startServer in common.ts, but for the build MEMSCOPE_NEXT_DIST_DIR names, served as
// `npm start` serves it.
// common.ts' ensureBuild only looks at .next/BUILD_ID and builds when it is missing,
// which with several builds of one checkout in use rebuilds (and type-checks) in the
// middle of a benchmark. This checks the build that is actually served and never builds.

export function distDir(): string {
  return process.env.MEMSCOPE_NEXT_DIST_DIR || ".next";
}

export function assertBuilt(): void {
  const dist = distDir();
  if (!fs.existsSync(path.join(ROOT, dist, "BUILD_ID"))) {
    throw new Error(`No ${dist}/BUILD_ID: build first (MEMSCOPE_NEXT_DIST_DIR=${dist} npx next build)`);
  }
}

/**
 * `env` adds to (or overrides) the server's environment, e.g. DATABASE_URL for PostgreSQL.
 * `nodeArgs`: more flags for the server's node (a profile: --cpu-prof, which NODE_OPTIONS refuses).
 */
export async function startBuiltServer(dataDir: string, timeoutMs = 90_000, readyPath = "/api/v1/ready", env: Record<string, string> = {}, nodeArgs: string[] = []): Promise<Server> {
  assertBuilt();
  const port = await freePort();
  // As `npm start` runs it (scripts/serve.mjs with WebAssembly on V8's baseline compiler,
  // docs/benchmarks.md section 9): `next start` with the default tiers kept ~120 MB more
  // resident, so RSS figures measured on it were not the product's. BENCH_LIFTOFF=0: default tiers.
  const wasm = process.env.BENCH_LIFTOFF === "0" ? [] : ["--liftoff-only"];
  const child: ChildProcess = spawn(process.execPath, [...wasm, ...nodeArgs, path.join(ROOT, "scripts", "serve.mjs")], {
    cwd: ROOT,
    env: { ...process.env, MEMSCOPE_DATA_DIR: dataDir, MEMSCOPE_SEED: "0", PORT: String(port), NODE_ENV: "production", NEXT_TELEMETRY_DISABLED: "1", ...env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let out = "";
  const keep = (b: Buffer) => {
    out += b.toString();
    if (out.length > 20_000) out = out.slice(-20_000);
  };
  child.stdout!.on("data", keep);
  child.stderr!.on("data", keep);
  let exited: number | null | undefined;
  const exitP = new Promise<void>((res) => child.on("exit", (code) => ((exited = code), res())));
  const pid = child.pid!;
  const stop = async () => {
    if (exited !== undefined) return;
    try {
      process.kill(-pid, "SIGTERM");
    } catch {
      /* gone */
    }
    const t = setTimeout(() => {
      try {
        process.kill(-pid, "SIGKILL");
      } catch {
        /* gone */
      }
    }, 5000);
    await exitP;
    clearTimeout(t);
  };
  const base = `http://127.0.0.1:${port}`;
  const t0 = now();
  for (;;) {
    if (exited !== undefined) throw new Error(`the server exited with ${exited} before answering:\n${out}`);
    try {
      const r = await fetch(`${base}${readyPath}`);
      await r.arrayBuffer();
      if (r.status === 200) break;
    } catch {
      /* not listening yet */
    }
    if (now() - t0 > timeoutMs) {
      await stop();
      throw new Error(`server did not answer within ${timeoutMs} ms:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  console.log(`Server up on ${base} (pid ${pid}, ${distDir()}) after ${((now() - t0) / 1000).toFixed(1)} s`);
  return { base, port, pid, stop, log: () => out };
}
