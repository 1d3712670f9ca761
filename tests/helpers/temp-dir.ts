import fs from "node:fs";
import os from "node:os";
import path from "node:path";

export function tempDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `memscope-${prefix}-`));
}

export function removeDir(dir: string) {
  fs.rmSync(dir, { recursive: true, force: true });
}
