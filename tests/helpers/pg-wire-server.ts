import { spawn } from "node:child_process";
import net from "node:net";
import path from "node:path";
import { freePort } from "./free-port";
import { removeDir, tempDir } from "./temp-dir";

// A PostgreSQL wire-protocol server for the DATABASE_URL path: pglite-socket with the
// pgvector extension on 127.0.0.1 stands in for a PostgreSQL server here.

export async function startPgWireServer(opts: { port?: number } = {}) {
  const port = opts.port ?? (await freePort());
  const dir = tempDir("pgwire");
  const bin = path.resolve(__dirname, "../../node_modules/@electric-sql/pglite-socket/dist/scripts/server.js");
  const child = spawn(
    process.execPath,
    [bin, `--db=${dir}`, `--port=${port}`, "--host=127.0.0.1", "--extensions=@electric-sql/pglite-pgvector:vector", "-m", "10"],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  let log = "";
  child.stdout.on("data", (d) => (log += d));
  child.stderr.on("data", (d) => (log += d));
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) {
      removeDir(dir);
      throw new Error(`pglite-socket exited:\n${log}`);
    }
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, "127.0.0.1", () => (s.end(), resolve(true)));
      s.on("error", () => resolve(false));
    });
    if (ok) break;
    if (Date.now() > deadline) {
      // Its data folder goes too: on tmpfs (tests/support/test-tmpdir.ts) a left folder is memory.
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once("exit", r));
        child.kill("SIGKILL");
        await exited;
      }
      removeDir(dir);
      throw new Error(`pglite-socket did not listen:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    url: `postgresql://postgres:postgres@127.0.0.1:${port}/postgres?sslmode=disable`,
    pid: child.pid!,
    dir,
    async stop() {
      child.kill("SIGTERM");
      // Up to 300 ms to exit on its own (it usually does at once), then killed.
      if (child.exitCode === null && child.signalCode === null) await Promise.race([new Promise((r) => child.once("exit", r)), new Promise((r) => setTimeout(r, 300))]);
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      removeDir(dir);
    },
  };
}
