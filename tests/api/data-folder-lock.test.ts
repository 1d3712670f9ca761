import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startAppServer } from "../helpers/app-server";
import { freePort } from "../helpers/free-port";
import { removeDir, tempDir } from "../helpers/temp-dir";

// Issue 9, part 3: a second server on a data folder another live process holds exits at
// start (non-zero, naming the folder and the holder's pid); a stale lock is taken over.

const ROOT = path.resolve(__dirname, "../..");
const dirs: string[] = [];
afterAll(() => dirs.forEach(removeDir));

/** A process that takes the folder lock and keeps it until killed. */
async function holdFolder(dataDir: string): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", "-e", `import { acquireFolderLock } from "./lib/db/folder-lock.ts"; acquireFolderLock(${JSON.stringify(dataDir)}); console.log("locked"); setInterval(() => {}, 1000);`],
    { cwd: ROOT, stdio: ["ignore", "pipe", "inherit"] },
  );
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on("data", (d) => String(d).includes("locked") && resolve());
    child.on("exit", (c) => reject(new Error(`holder exited ${c}`)));
  });
  return child;
}

async function kill(child: ChildProcess) {
  if (child.exitCode !== null || child.signalCode) return;
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGKILL");
  await exited;
}

describe("a locked data folder", () => {
  it("a second server exits at start, non-zero, naming the folder and the holder's pid, without listening", async () => {
    const dataDir = tempDir("locked");
    dirs.push(dataDir);
    const holder = await holdFolder(dataDir);
    try {
      const port = await freePort();
      const server = spawn(process.execPath, [path.join(ROOT, "scripts", "serve.mjs")], {
        cwd: ROOT,
        env: { ...process.env, PORT: String(port), MEMSCOPE_DATA_DIR: dataDir, DATABASE_URL: "", NODE_ENV: "production" },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let log = "";
      server.stdout!.on("data", (d) => (log += d));
      server.stderr!.on("data", (d) => (log += d));
      const code = await new Promise<number | null>((resolve) => {
        const t = setTimeout(() => resolve(null), 60_000);
        server.once("exit", (c) => {
          clearTimeout(t);
          resolve(c);
        });
      });
      await kill(server);
      expect(code, log).not.toBe(null); // it exited by itself
      expect(code).not.toBe(0);
      expect(log).toContain(dataDir);
      expect(log).toContain(`process ${holder.pid}`);
      expect(log).not.toContain("listening");
    } finally {
      await kill(holder);
    }
  });

  it("a stale lock (its holder killed) is taken over: the server starts and answers", async () => {
    const dataDir = tempDir("stale");
    dirs.push(dataDir);
    await kill(await holdFolder(dataDir));
    const server = await startAppServer({ dataDir });
    try {
      const r = await fetch(`${server.url}/api/v1/ready`);
      expect(r.status).toBe(200);
    } finally {
      await server.stop();
    }
  }, 240_000); // a first start migrates a fresh folder: slow on a loaded machine
});
