import fs from "node:fs";
import path from "node:path";

// PGlite has no lock of its own: two processes on one data folder silently lose rows.
// A lock file created with O_EXCL holds the owner's pid; a lock whose pid is gone is
// stale and taken over.

export class DataFolderLockedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly holder: { pid: number; command?: string; since?: string },
  ) {
    super(
      `The data folder ${dataDir} is in use by process ${holder.pid}` +
        (holder.command ? ` (${holder.command})` : "") +
        (holder.since ? ` since ${holder.since}` : "") +
        `. Stop that process first, or point MEMSCOPE_DATA_DIR at another folder.`,
    );
    this.name = "DataFolderLockedError";
  }
}

const LOCK_FILE = "memscope.lock";

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

export type FolderLock = { release(): void };

type Holder = { pid: number; command?: string; since?: string };

function readHolder(file: string): Holder | null {
  try {
    return JSON.parse(fs.readFileSync(file, "utf8"));
  } catch {
    return null; // absent, half-written or vanished: nobody (or a stale holder)
  }
}

export function acquireFolderLock(dataDir: string): FolderLock {
  fs.mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, LOCK_FILE);
  const me = {
    pid: process.pid,
    command: process.argv.slice(1, 3).map((a) => path.basename(a)).join(" "),
    since: new Date().toISOString(),
  };
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      fs.writeFileSync(file, JSON.stringify(me), { flag: "wx" });
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        try {
          const cur = JSON.parse(fs.readFileSync(file, "utf8"));
          if (cur.pid === process.pid) fs.unlinkSync(file);
        } catch {
          /* already gone */
        }
      };
      process.once("exit", release);
      return { release };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
      const holder = readHolder(file);
      if (holder && holder.pid === process.pid) {
        throw new DataFolderLockedError(dataDir, holder);
      }
      if (holder && isAlive(holder.pid)) throw new DataFolderLockedError(dataDir, holder);
      try {
        fs.unlinkSync(file);
      } catch {
        /* someone else removed it first */
      }
    }
  }
  throw new Error(`Could not lock the data folder ${dataDir}`);
}
