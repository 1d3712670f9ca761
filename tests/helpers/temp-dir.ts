import fs from "node:fs";
import os from "node:os";
import path from "node:path";

export function tempDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `memscope-${prefix}-`));
}

export function removeDir(dir: string) {
  fs.rmSync(dir, { recursive: true, force: true });
}

/**
 * A suite's temporary folders: `fresh(prefix)` makes one, and they are all removed after the
 * suite (registered with the suite's own `afterAll`).
 */
export function suiteTempDirs(afterAll: (fn: () => void) => void): (prefix: string) => string {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach(removeDir));
  return (prefix) => {
    const d = tempDir(prefix);
    dirs.push(d);
    return d;
  };
}
