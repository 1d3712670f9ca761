import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { freePort } from "./free-port";

// Like startAppServer, but on a data folder the caller owns: it is kept after stop(),
// so a second server can open the same folder (restart, model change).

export type DirServer = { url: string; dataDir: string; logs(): string; stop(): Promise<void> };

const ROOT = path.resolve(__dirname, "../..");

export async function startAppServerOnDir(dataDir: string, env: Record<string, string> = {}): Promise<DirServer> {
  if (!fs.existsSync(path.join(ROOT, process.env.MEMSCOPE_NEXT_DIST_DIR || ".next", "BUILD_ID"))) {
    throw new Error("No production build: run `npm test` (it builds first) or `npx next build`.");
  }
  const port = await freePort();
  const childEnv: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    NODE_ENV: "production",
    NEXT_TELEMETRY_DISABLED: "1",
    MEMSCOPE_SEED: "0",
    ...env,
    MEMSCOPE_DATA_DIR: dataDir,
  };
  delete childEnv.DATABASE_URL;
  if (!env.MEMSCOPE_API_KEY) delete childEnv.MEMSCOPE_API_KEY;
  // The embedder comes from `env` only, never from the shell running the tests.
  for (const k of ["MEMSCOPE_EMBEDDINGS_BASE_URL", "MEMSCOPE_EMBEDDINGS_API_KEY", "MEMSCOPE_EMBEDDINGS_MODEL", "MEMSCOPE_EMBEDDINGS_DIMENSIONS"]) {
    if (!(k in env)) delete childEnv[k];
  }

  const child: ChildProcess = spawn(process.execPath, [path.join(ROOT, "scripts", "serve.mjs")], { cwd: ROOT, env: childEnv, stdio: ["ignore", "pipe", "pipe"] });
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
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
      if (child.exitCode === null) {
        child.kill("SIGKILL");
        await exited;
      }
    },
  };
}
