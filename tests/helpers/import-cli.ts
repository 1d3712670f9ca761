import { execFile } from "node:child_process";
import path from "node:path";

/** `npm run import -- <args>` against the server at `url`, with `key` (none by default): its exit code and its output. */
export function runImportCli(url: string, args: string[], key = ""): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [path.join(__dirname, "../../node_modules/tsx/dist/cli.mjs"), path.join(__dirname, "../../scripts/import.ts"), ...args],
      { env: { ...process.env, MEMSCOPE_URL: url, MEMSCOPE_API_KEY: key }, timeout: 60_000 },
      (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out: stdout + stderr }),
    );
  });
}
