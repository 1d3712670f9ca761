// Status coverage: every status a route's contract declares must have been answered to some
// test. Test servers append "METHOD /path STATUS phase" lines to MEMSCOPE_STATUS_LOG
// (lib/api/status-log.ts); `npm test` passes the file here after a full run.
//
//   tsx --conditions=react-server scripts/check-status-coverage.ts <status log>
//
// Required, per contract:
// - each success status (`status`, `alsoStatus`), answered by the handler;
// - each declared error status (`errors`), answered by the handler or its input checks (a
//   422 of the body schema is the contract's own); a 404 only counts from the handler: the
//   404 of a malformed id or of another project's key is the wrapper's, not a lookup;
// - 401 (no credentials) and 403 (missing grant) on every non-public route: the generated
//   access matrix (tests/api/auth-access-matrix.test.ts) answers these for each route.
// Counted but not required per route: 400 (input guard), 404 of another project, 413, 415,
// 429. withApi answers them in one shared place, before any handler code, and suites test
// that place (malformed-input, auth-access, body-limit tests); the summary shows how many
// routes saw each.
// Also a failure: a status a route answered that its contract does not declare (and that is
// not generic for the step that answered it), and any 500.
// The property-based fuzz (tests/api/malformed-input.test.ts) writes to "<log>.fuzz": its
// random answers are checked against the contracts too, but never count as coverage, so that
// coverage does not depend on what one run's random inputs happened to hit.
import fs from "node:fs";
import { ALL_CONTRACTS } from "../lib/api/contracts";
import type { ApiContract } from "../lib/api/contract";

type Seen = { status: number; phase: string };

/** Pairs that no API test can produce, with the reason. Keep empty unless truly so. */
const EXEMPT: Record<string, string> = {};

const file = process.argv[2];
if (!file) {
  console.error("usage: check-status-coverage.ts <status log>");
  process.exit(2);
}
function readStatusLog(f: string): Map<string, Seen[]> {
  const lines = fs.existsSync(f) ? fs.readFileSync(f, "utf8").split("\n").filter(Boolean) : [];
  const byRoute = new Map<string, Seen[]>();
  for (const line of lines) {
    const [method, path, status, phase] = line.split(" ");
    const k = `${method} ${path}`;
    byRoute.set(k, [...(byRoute.get(k) ?? []), { status: Number(status), phase }]);
  }
  return byRoute;
}
const seen = readStatusLog(file);
const fuzzSeen = readStatusLog(`${file}.fuzz`);

// What any route may answer without declaring it (contract.ts), by the step that answers:
// access (401, 403, 404 of another project, 429), input (400 input guard, 404 of a malformed
// id, 413, 415, and 422 for a path, query or body field its schema refuses, on a route that has
// them), a handler's 400 (a forged cursor), and 503. Anything else must be declared.
// A 503 database_busy from the key check or the handler: contention that outlasted the retry
// rule (lib/db/retry-contention.ts), which its unit tests provoke on a real PostgreSQL.
const GENERIC: Record<string, number[]> = { access: [401, 403, 404, 429, 503], input: [400, 404, 413, 415], handler: [400, 503] };
const missing: string[] = [];
const undeclared: string[] = [];
const genericCount = new Map<string, Set<string>>();
let required = 0;

const has = (c: ApiContract, status: number, phases: string[]) =>
  (seen.get(`${c.method} ${c.path}`) ?? []).some((s) => s.status === status && phases.includes(s.phase));

for (const c of ALL_CONTRACTS) {
  const need: [number, string[], string][] = [];
  for (const s of [c.status ?? 200, ...(c.alsoStatus ?? [])]) need.push([s, ["handler"], "success"]);
  for (const s of c.errors ?? []) need.push([s, s === 404 ? ["handler"] : ["handler", "input"], "declared error"]);
  if (c.scope !== "public") {
    need.push([401, ["access"], "no credentials"]);
    need.push([403, ["access"], "missing grant"]);
  }
  for (const [status, phases, what] of need) {
    const k = `${c.method} ${c.path} ${status}`;
    if (EXEMPT[k]) continue;
    required++;
    if (!has(c, status, phases)) missing.push(`${k} (${what}, from ${phases.join(" or ")})`);
  }
  const declared = new Set([c.status ?? 200, ...(c.alsoStatus ?? []), ...(c.errors ?? [])]);
  const k = `${c.method} ${c.path}`;
  for (const [s, fuzz] of [...(seen.get(k) ?? []).map((x) => [x, false] as const), ...(fuzzSeen.get(k) ?? []).map((x) => [x, true] as const)]) {
    const generic = (GENERIC[s.phase] ?? []).includes(s.status) || (s.phase === "input" && s.status === 422 && !!(c.params || c.query || c.body || c.rawBody));
    if (s.status === 500 || (!declared.has(s.status) && !generic)) undeclared.push(`${k} ${s.status} (${s.phase}${fuzz ? ", fuzz" : ""})`);
    if (generic && !fuzz) {
      const g = `${s.status} ${s.phase}`;
      genericCount.set(g, (genericCount.get(g) ?? new Set()).add(`${c.method} ${c.path}`));
    }
  }
}

const routes = ALL_CONTRACTS.length;
console.log(`status coverage: ${required - missing.length}/${required} required (route, status) pairs answered to tests, over ${routes} routes`);
console.log(
  `  generic answers seen (routes): ${[...genericCount.entries()]
    .sort()
    .map(([g, routes]) => `${g} ${routes.size}`)
    .join(", ")}`,
);
if (undeclared.length) {
  console.log(`answered but not in the contract (or 500), ${undeclared.length}:`);
  for (const u of undeclared) console.log(`  ${u}`);
}
if (missing.length) {
  console.log(`uncovered, ${missing.length}: no test saw these answers`);
  for (const m of missing) console.log(`  ${m}`);
}
process.exit(missing.length || undeclared.length ? 1 : 0);
