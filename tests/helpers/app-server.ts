import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { freePort } from "./free-port";
import { removeDir, tempDir } from "./temp-dir";

// Starts the real production server (`next start`, built by `npm test` first) on a
// fresh data folder or a DATABASE_URL, and stops it afterwards.

export type AppServer = { url: string; dataDir: string | null; logs(): string; stop(): Promise<void> };

const ROOT = path.resolve(__dirname, "../..");

export async function startAppServer(opts: { databaseUrl?: string; seed?: boolean; env?: Record<string, string> } = {}): Promise<AppServer> {
  if (!fs.existsSync(path.join(ROOT, process.env.MEMSCOPE_NEXT_DIST_DIR || ".next", "BUILD_ID"))) {
    throw new Error("No production build: run `npm test` (it builds first) or `npx next build`.");
  }
  const port = await freePort();
  const dataDir = opts.databaseUrl ? null : tempDir("data");
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    NODE_ENV: "production",
    NEXT_TELEMETRY_DISABLED: "1",
    MEMSCOPE_SEED: opts.seed ? "1" : "0",
    ...opts.env,
  };
  delete env.DATABASE_URL;
  delete env.MEMSCOPE_API_KEY;
  if (opts.env?.MEMSCOPE_API_KEY) env.MEMSCOPE_API_KEY = opts.env.MEMSCOPE_API_KEY;
  if (opts.databaseUrl) env.DATABASE_URL = opts.databaseUrl;
  else env.MEMSCOPE_DATA_DIR = dataDir!;

  const child: ChildProcess = spawn(process.execPath, [path.join(ROOT, "scripts", "serve.mjs")], {
    cwd: ROOT,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let log = "";
  child.stdout!.on("data", (d) => (log += d));
  child.stderr!.on("data", (d) => (log += d));
  const url = `http://127.0.0.1:${port}`;

  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited (${child.exitCode}):\n${log}`);
    try {
      const r = await fetch(`${url}/api/v1/ready`);
      if (r.ok) break;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`server did not become ready:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }

  return {
    url,
    dataDir,
    logs: () => log,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once("exit", r));
        child.kill("SIGTERM");
        await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
        if (child.exitCode === null) child.kill("SIGKILL");
      }
      if (dataDir) removeDir(dataDir);
    },
  };
}
