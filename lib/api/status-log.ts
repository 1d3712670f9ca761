import "server-only";
import fs from "node:fs";
import type { ApiContract } from "./contract";

// Test servers set MEMSCOPE_STATUS_LOG to a file; each (method, path, status, phase) a server
// answers is appended once. scripts/check-status-coverage.ts compares the union of all test
// servers' lines with the statuses each contract declares. Unset (production): nothing happens.

/** Which step answered: access (auth, scope, project), input (params, query, body), handler. */
export type Phase = "access" | "input" | "handler";

const FILE = process.env.MEMSCOPE_STATUS_LOG;
const seen = new Set<string>();

export function logStatus(contract: ApiContract, status: number, phase: Phase): void {
  if (!FILE) return;
  const line = `${contract.method} ${contract.path} ${status} ${phase}\n`;
  if (seen.has(line)) return;
  seen.add(line);
  try {
    // One short O_APPEND write per line: lines from parallel servers do not interleave.
    fs.appendFileSync(FILE, line);
  } catch {
    /* a test aid only: never fail a request over it */
  }
}
