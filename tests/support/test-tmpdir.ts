import fs from "node:fs";
import os from "node:os";
import path from "node:path";

// Where the test processes (Vitest's workers, the servers and browsers they start) keep their
// temporary files: a folder on a RAM-backed tmpfs (/dev/shm) when the machine has one with room,
// else the system's temp folder. Every embedded server starts on a 41 MB copy of the migrated
// template and removes it when it stops; on this ext4 disk (mounted with `discard`) removing a
// freshly written copy blocked the worker 4.5-5.5 s (copying it, 1.5 s), on tmpfs 0.2-0.4 s
// (docs/benchmarks.md, section 23). The files are the same files; only where they live changes.
// MEMSCOPE_TEST_TMPDIR names another folder, or "off" keeps the system's.

const TMPFS_MAGIC = 0x01021994;
/** Room the folder must have: a run holds a few dozen data folders of 41-60 MB at most at once. */
const MIN_FREE_BYTES = 4 * 1024 ** 3;

function ramBacked(): string | null {
  const shm = "/dev/shm";
  try {
    const s = fs.statfsSync(shm);
    if (s.type !== TMPFS_MAGIC || s.bavail * s.bsize < MIN_FREE_BYTES) return null;
    // tmpfs pages are memory: leave the servers theirs.
    if (!hasAvailableMemory()) return null;
    return path.join(shm, `memscope-tests-${process.getuid?.() ?? "user"}`);
  } catch {
    return null;
  }
}

/** MemAvailable (the page cache counts as reclaimable, unlike os.freemem()). */
function hasAvailableMemory(): boolean {
  try {
    const m = /MemAvailable:\s+(\d+) kB/.exec(fs.readFileSync("/proc/meminfo", "utf8"));
    return !!m && Number(m[1]) * 1024 >= MIN_FREE_BYTES;
  } catch {
    return false;
  }
}

/** Chooses the test processes' temp folder, creates it and sets TMPDIR to it (inherited by every process started after). */
export function useTestTmpdir(): string {
  const asked = process.env.MEMSCOPE_TEST_TMPDIR?.trim();
  if (asked === "off") return os.tmpdir();
  const dir = asked || ramBacked();
  if (!dir) return os.tmpdir();
  try {
    fs.mkdirSync(dir, { recursive: true });
    // Shared like /tmp: the PostgreSQL a suite starts as root runs as the postgres user, in a folder here.
    if (!asked) fs.chmodSync(dir, 0o1777);
  } catch {
    return os.tmpdir();
  }
  if (!asked) removeStale(dir);
  process.env.TMPDIR = dir;
  return dir;
}

/**
 * Memory is not a disk: what earlier runs left here (the migrated templates of other migration
 * sets, a crashed run's folders) goes once unused for 12 hours. The templates in use are touched
 * at each run's first use (tests/helpers/fresh-data-dir.ts), so a run never loses its own.
 */
function removeStale(dir: string) {
  const before = Date.now() - 12 * 3600_000;
  for (const name of fs.readdirSync(dir)) {
    const p = path.join(dir, name);
    try {
      if (fs.statSync(p).mtimeMs < before) fs.rmSync(p, { recursive: true, force: true });
    } catch {
      /* gone already, or another user's */
    }
  }
}
