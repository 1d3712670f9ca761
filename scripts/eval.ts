// npm run eval -- --set NAME [--cases FILE] [--import FILE] [--config FILE] [--protocol memscope|longmemeval|locomo] [--compare RUN|previous [--allow-config-change]] [--fail-under recall@10=0.85 ...] [--out DIR] [--label TEXT]
//
// Puts memory recall under CI. Talks to a running Memscope over HTTP (MEMSCOPE_URL, default
// http://localhost:3000; MEMSCOPE_API_KEY as a Bearer key with read and write): the server
// runs the set with the product's own retrieval and stores the run, so CI runs show up in
// the Evals page and its chart beside everyone else's. (HTTP rather than opening the
// database: the embedded database allows one process at a time, and a run must measure
// the deployed server's retrieval, not a copy of it.)
//
//   --cases FILE   JSONL or CSV cases to sync into the set first (made when missing; cases
//                  already there by external_id are skipped)
//   --import FILE  a LongMemEval or LoCoMo file (--format longmemeval|locomo, default from the
//                  file name) imported into the set first, streamed to the server whatever its
//                  size: its sessions, turns, memories and cases (already imported ones skipped)
//   --extraction turns|rules|chat  how --import's turns become memories (default turns;
//                  chat: the server's configured chat model)
//   --user-prefix P  --import's end-user id prefix (default the format's name)
//   --dry-run      with --import: read the whole file and list every defect, writing nothing
//                  (then stop; exits 1 when the file has defects)
//   --no-run       stop after --cases / --import (no run)
//   --config FILE  JSON run configuration: k, weights, min_score, memory_types, status,
//                  embedding_model, as_of (and optionally label)
//   --protocol memscope|longmemeval|locomo  how the run scores its cases (default memscope,
//                  or "protocol" in --config): longmemeval and locomo score as those
//                  benchmarks' own evaluation code does (README, Evals), so the figures
//                  compare with published ones; the summary names the protocol
//   --compare RUN  a run id, or "previous" (the set's newest run before this one): prints
//                  metric deltas with the paired bootstrap test and the cases it broke
//   --allow-config-change  compare even when the two runs' retrieval differs (k, weights,
//                  min_score, memory_types, status, model, as_of); without it that exits 2
//   --fail-under M@K=V  fail when metric M (recall, precision, mrr, ndcg, hit_rate) at k=K is below V
//   --out DIR      where eval-<set>.json and eval-<set>.junit.xml go (default ./eval-results)
//
// Exit status: 0 when every threshold holds and the comparison found no significant
// regression; 1 when one fails; 2 on a usage or server error, or when --compare met a run
// of another configuration without --allow-config-change.

import fs from "node:fs";
import http from "node:http";
import https from "node:https";
import path from "node:path";
import type { Comparison, EvalRun, EvalSet, ImportSummaryOut as ImportSummary, Interval, MetricName, RunCase } from "../lib/evals/schemas";

type Threshold = { metric: MetricName; k: number; min: number; spec: string };
type Args = {
  set?: string;
  cases?: string;
  config?: string;
  protocol?: string;
  compare?: string;
  allowConfigChange?: boolean;
  failUnder: Threshold[];
  out: string;
  label?: string;
  import?: string;
  format?: string;
  extraction?: string;
  userPrefix?: string;
  noRun?: boolean;
  dryRun?: boolean;
};

/** What a protocol's figures are, in the benchmark's own words (printed beside them). */
const PROTOCOL_NOTE: Record<string, string> = {
  longmemeval: " (turn level, user turns only; recall = recall_all, hit rate = recall_any, nDCG = ndcg_any; abstention and unlabelled questions left out)",
  locomo: " (recall = share of evidence ids among the top k dialog turns; a question without evidence scores 1)",
};

const QUALITY = ["recall", "precision", "mrr", "ndcg", "hit_rate"] as const;

function fail(msg: string): never {
  console.error(`eval: ${msg}`);
  process.exit(2);
}

function parseArgs(argv: string[]): Args {
  const a: Args = { failUnder: [], out: "eval-results" };
  for (let i = 0; i < argv.length; i++) {
    const x = argv[i];
    const [flag, inline] = x.startsWith("--") && x.includes("=") && !x.startsWith("--fail-under=") ? [x.slice(0, x.indexOf("=")), x.slice(x.indexOf("=") + 1)] : [x, undefined];
    const value = () => inline ?? argv[++i] ?? fail(`${flag} needs a value`);
    if (flag === "--set") a.set = value();
    else if (flag === "--cases") a.cases = value();
    else if (flag === "--config") a.config = value();
    else if (flag === "--protocol") a.protocol = value();
    else if (flag === "--compare") a.compare = value();
    else if (flag === "--out") a.out = value();
    else if (flag === "--label") a.label = value();
    else if (flag === "--import") a.import = value();
    else if (flag === "--format") a.format = value();
    else if (flag === "--extraction") a.extraction = value();
    else if (flag === "--user-prefix") a.userPrefix = value();
    else if (flag === "--no-run") a.noRun = true;
    else if (flag === "--dry-run") a.dryRun = true;
    else if (flag === "--allow-config-change") a.allowConfigChange = true;
    else if (flag === "--fail-under" || flag.startsWith("--fail-under=")) a.failUnder.push(parseThreshold(flag.startsWith("--fail-under=") ? flag.slice(13) : value()));
    else if (flag === "--help" || flag === "-h") {
      console.log(fs.readFileSync(new URL(import.meta.url), "utf8").split("\n\n")[0].replace(/^\/\/ ?/gm, ""));
      process.exit(0);
    } else fail(`unknown argument ${x}`);
  }
  if (!a.set) fail("--set NAME is required");
  return a;
}

function parseThreshold(spec: string): Threshold {
  const m = /^([a-z_]+)@(\d+)=([0-9.]+)$/.exec(spec.trim());
  if (!m || !(QUALITY as readonly string[]).includes(m[1])) fail(`--fail-under takes METRIC@K=VALUE with METRIC one of ${QUALITY.join(", ")} (got ${spec})`);
  return { metric: m[1] as MetricName, k: Number(m[2]), min: Number(m[3]), spec };
}

const BASE = (process.env.MEMSCOPE_URL ?? "http://localhost:3000").replace(/\/$/, "");
const KEY = process.env.MEMSCOPE_API_KEY;

function explain(status: number, text: string): string {
  try {
    const e = JSON.parse(text).error;
    return `${status} ${e.code}: ${e.message}${e.details?.length ? ` (${e.details.map((d: { field?: string; message: string }) => `${d.field ?? ""} ${d.message}`).join("; ")})` : ""}`;
  } catch {
    return `${status}: ${text.slice(0, 500)}`;
  }
}

/**
 * One API call; `body` is JSON, or { file } to send a file streamed from disk (a benchmark
 * file may be hundreds of MB). node:http rather than fetch: the server answers a run or an
 * import when it is done, which can take longer than fetch's 300 s wait for headers.
 */
function api<T>(method: string, p: string, body?: unknown, onSent?: () => void): Promise<T> {
  const url = new URL(`${BASE}/api/v1${p}`);
  const file = body && typeof body === "object" && "file" in body ? String((body as { file: string }).file) : null;
  const json = body === undefined || file ? null : Buffer.from(JSON.stringify(body));
  const headers: Record<string, string> = { ...(KEY ? { authorization: `Bearer ${KEY}` } : {}) };
  if (file) Object.assign(headers, { "content-type": "application/octet-stream", "content-length": String(fs.statSync(file).size) });
  if (json) Object.assign(headers, { "content-type": "application/json", "content-length": String(json.length) });
  return new Promise((resolve) => {
    const req = (url.protocol === "https:" ? https : http).request(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        if ((res.statusCode ?? 500) >= 300) fail(`${method} ${p} answered ${explain(res.statusCode ?? 0, text)}`);
        resolve((text ? JSON.parse(text) : null) as T);
      });
    });
    req.on("error", (e) => fail(`cannot reach ${BASE}: ${e.message}`));
    if (onSent) req.on("finish", onSent);
    if (file) fs.createReadStream(file).pipe(req);
    else req.end(json ?? undefined);
  });
}

const fmt = (v: number | null, digits = 3) => (v === null ? "-" : v.toFixed(digits));
const ci = (i: Interval, digits = 3) => (i.low === null ? "" : `[${fmt(i.low, digits)}, ${fmt(i.high, digits)}]`);

function table(rows: string[][]): string {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => (r[c] ?? "").length)));
  return rows.map((r) => r.map((x, c) => (c === 0 ? x.padEnd(widths[c]) : x.padStart(widths[c]))).join("  ").trimEnd()).join("\n");
}

const xml = (s: string) => s.replace(/[<>&"']/g, (c) => ({ "<": "&lt;", ">": "&gt;", "&": "&amp;", '"': "&quot;", "'": "&apos;" })[c]!);

function junit(set: string, run: EvalRun, cases: RunCase[], checks: { name: string; ok: boolean; message: string }[]): string {
  const scored = cases.filter((c) => c.hit !== null);
  const failures = scored.filter((c) => !c.hit).length + checks.filter((c) => !c.ok).length;
  const lines = [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<testsuites name="memscope-evals" tests="${scored.length + checks.length}" failures="${failures}" time="${(run.duration_ms / 1000).toFixed(3)}">`,
    `  <testsuite name="${xml(set)}" tests="${scored.length + checks.length}" failures="${failures}" time="${(run.duration_ms / 1000).toFixed(3)}">`,
  ];
  for (const c of checks) {
    lines.push(`    <testcase classname="${xml(set)}.checks" name="${xml(c.name)}">${c.ok ? "" : `<failure message="${xml(c.message)}"/>`}</testcase>`);
  }
  for (const c of scored) {
    const name = `${c.category ? `[${c.category}] ` : ""}${c.question}`;
    const missed = c.expected_ranks.filter((r) => r.rank === null).map((r) => `${r.kind} ${r.target}`);
    lines.push(
      `    <testcase classname="${xml(set)}.cases" name="${xml(name)}" time="${(c.latency_ms / 1000).toFixed(4)}">${c.hit ? "" : `<failure message="${xml(`no expected item within k=${run.k}: ${missed.join(", ")}`)}"/>`}</testcase>`,
    );
  }
  lines.push("  </testsuite>", "</testsuites>", "");
  return lines.join("\n");
}

const PROGRESS_EVERY_MS = 15_000;

/** One progress line of a running import; a failed read skips the line (the import's own answer reports errors). */
async function printImportProgress(setId: string, before: number, t0: number) {
  const url = new URL(`${BASE}/api/v1/evals/sets/${setId}`);
  const r = await fetch(url, { headers: KEY ? { authorization: `Bearer ${KEY}` } : {} }).catch(() => null);
  if (!r?.ok) return;
  const now = (await r.json()) as EvalSet;
  console.log(`  ... ${now.case_count - before} new case(s) so far, ${((Date.now() - t0) / 1000).toFixed(0)} s`);
}

const args = parseArgs(process.argv.slice(2));
const config = args.config ? JSON.parse(fs.readFileSync(args.config, "utf8")) : {};
const label = args.label ?? config.label;
delete config.label;
if (args.protocol !== undefined) {
  if (!["memscope", "longmemeval", "locomo"].includes(args.protocol)) fail(`--protocol: "${args.protocol}" is none of memscope, longmemeval, locomo`);
  config.protocol = args.protocol;
}

let [set] = (await api<{ data: EvalSet[] }>("GET", `/evals/sets?name=${encodeURIComponent(args.set!)}`)).data;
if (!set) {
  if (!args.cases && !args.import) fail(`no eval set named "${args.set}" (give --cases FILE or --import FILE to make it)`);
  set = await api<EvalSet>("POST", "/evals/sets", { name: args.set });
}
if (args.cases) {
  const format = args.cases.toLowerCase().endsWith(".csv") ? "csv" : "jsonl";
  const r = await api<{ cases: number; skipped: number }>("POST", `/evals/sets/${set.id}/import`, { format, content: fs.readFileSync(args.cases, "utf8") });
  if (r.cases) console.log(`${r.cases} new case(s) added to ${args.set} (${r.skipped} already there)`);
}
if (args.import) {
  const format = args.format ?? (/locomo/i.test(path.basename(args.import)) ? "locomo" : /longmemeval/i.test(path.basename(args.import)) ? "longmemeval" : fail("--import: give --format longmemeval|locomo"));
  const q = new URLSearchParams({ format, ...(args.extraction ? { extraction: args.extraction } : {}), ...(args.userPrefix ? { user_prefix: args.userPrefix } : {}), ...(args.dryRun ? { dry_run: "true" } : {}) });
  const mb = (fs.statSync(args.import).size / 1048576).toFixed(1);
  console.log(`importing ${args.import} (${format}, ${mb} MB)...`);
  const t0 = Date.now();
  const before = set.case_count;
  // The server answers when the whole file is imported (tens of minutes for hundreds of MB):
  // meanwhile the set's case count, which grows record by record, is the progress.
  let progress: NodeJS.Timeout | undefined;
  const r = await api<ImportSummary>("POST", `/evals/sets/${set.id}/import/upload?${q}`, { file: args.import }, () => {
    console.log(`uploaded ${mb} MB in ${((Date.now() - t0) / 1000).toFixed(1)} s; the server is importing it record by record`);
    progress = setInterval(() => void printImportProgress(set.id, before, t0), PROGRESS_EVERY_MS);
  });
  clearInterval(progress);
  console.log(`${r.dry_run ? "read (dry run, nothing written)" : "imported"} in ${((Date.now() - t0) / 1000).toFixed(1)} s: ${r.cases} case(s) (${r.skipped} already there), ${r.conversations} conversation(s), ${r.turns} turn(s), ${r.memories} memorie(s)`);
  if (r.defect_count) {
    console.log(`\n${r.defect_count} defect(s)${r.defect_count > r.defects.length ? ` (the first ${r.defects.length})` : ""}:`);
    for (const d of r.defects) console.log(`  - ${d.record}: ${d.field}: ${d.message}${d.unscorable ? " (unscorable)" : ""}`);
  }
  if (r.dry_run) process.exit(r.defect_count ? 1 : 0);
}
if (args.noRun) process.exit(0);
const previous = await api<{ data: EvalRun[] }>("GET", `/evals/sets/${set.id}/runs`);
const run = await api<EvalRun>("POST", `/evals/sets/${set.id}/runs`, { config, ...(label ? { label } : {}) });
const cases = (await api<{ data: RunCase[] }>("GET", `/evals/runs/${run.id}/cases`)).data;

let comparison: Comparison | null = null;
if (args.compare) {
  const base = args.compare === "previous" ? previous.data.at(-1)?.id : args.compare;
  if (!base) console.log("--compare previous: this is the set's first run; nothing to compare");
  else comparison = await api<Comparison>("GET", `/evals/runs/${run.id}/compare?base=${encodeURIComponent(base)}`);
}

const m = run.metrics.overall;
console.log(`\neval set "${set.name}": ${m.cases} cases (${m.scored_cases} scored), k=${run.k}, scored as ${run.config.protocol}${PROTOCOL_NOTE[run.config.protocol] ?? ""}, ${run.embedding_model}, run ${run.id} in ${(run.duration_ms / 1000).toFixed(1)} s\n`);
const rows: string[][] = [["metric", "value", "95% CI", ...(comparison ? ["base", "delta", "p", ""] : [])]];
const names: [MetricName, string, number][] = [
  ["recall", `recall@${run.k}`, 3],
  ["precision", `precision@${run.k}`, 3],
  ["mrr", "MRR", 3],
  ["ndcg", `nDCG@${run.k}`, 3],
  ["hit_rate", "hit rate", 3],
  ["tokens", "tokens", 1],
  ["latency_p50", "latency p50 ms", 1],
  ["latency_p95", "latency p95 ms", 1],
];
for (const [key, name, d] of names) {
  const row = [name, fmt(m[key].value, d), ci(m[key], d)];
  if (comparison) {
    const delta = comparison.deltas.find((x) => x.metric === key)!;
    row.push(fmt(delta.base, d), delta.delta === null ? "-" : `${delta.delta >= 0 ? "+" : ""}${delta.delta.toFixed(d)}`, fmt(delta.p_value, 3), delta.worse ? "WORSE" : delta.significant ? "better" : "");
  }
  rows.push(row);
}
console.log(table(rows));
const cats = Object.entries(run.metrics.by_category);
if (cats.length) {
  console.log("");
  console.log(table([["category", "cases", `recall@${run.k}`, "MRR", "hit rate"], ...cats.map(([c, s]) => [c, String(s.scored_cases), fmt(s.recall.value), fmt(s.mrr.value), fmt(s.hit_rate.value)])]));
}
const missed = cases.filter((c) => c.hit === false);
if (missed.length) {
  console.log(`\nmissed (${missed.length}):`);
  for (const c of missed.slice(0, 20)) console.log(`  - ${c.question} (${c.user_id})`);
}

const checks: { name: string; ok: boolean; message: string }[] = [];
for (const t of args.failUnder) {
  if (t.k !== run.k) fail(`--fail-under ${t.spec}: the run used k=${run.k} (set "k": ${t.k} in --config)`);
  const v = m[t.metric].value;
  const ok = v !== null && v >= t.min;
  checks.push({ name: `${t.metric}@${t.k} >= ${t.min}`, ok, message: `${t.metric}@${t.k} is ${fmt(v)}, under ${t.min}` });
}
if (comparison) {
  const worse = comparison.deltas.filter((d) => d.worse).map((d) => `${d.metric} ${d.delta! >= 0 ? "+" : ""}${d.delta!.toFixed(3)} (p=${fmt(d.p_value)})`);
  checks.push({ name: `no significant regression against ${comparison.base_run_id}`, ok: !comparison.regressed, message: `significantly worse: ${worse.join(", ")}` });
  console.log(`\nagainst run ${comparison.base_run_id} (${comparison.paired_cases} paired cases, paired bootstrap):`);
  console.log(`  newly failed (${comparison.newly_failed.length}):${comparison.newly_failed.map((c) => `\n    - ${c.question}`).join("")}`);
  console.log(`  newly passed (${comparison.newly_passed.length}):${comparison.newly_passed.map((c) => `\n    + ${c.question}`).join("")}`);
  if (comparison.config_changes.length) {
    console.log(`\nWARNING: the two runs differ in configuration, so their scores do not compare like with like:`);
    for (const c of comparison.config_changes) console.log(`  ${c.field}: ${c.base ?? "(unset)"} in the base run, ${c.head ?? "(unset)"} in this one`);
  }
}

fs.mkdirSync(args.out, { recursive: true });
const slug = set.name.replace(/[^A-Za-z0-9._-]+/g, "_");
const jsonPath = path.join(args.out, `eval-${slug}.json`);
const xmlPath = path.join(args.out, `eval-${slug}.junit.xml`);
fs.writeFileSync(jsonPath, JSON.stringify({ set, run, cases, comparison, checks }, null, 2));
fs.writeFileSync(xmlPath, junit(set.name, run, cases, checks));

console.log("");
for (const c of checks) console.log(`${c.ok ? "PASS" : "FAIL"}  ${c.name}${c.ok ? "" : `: ${c.message}`}`);
console.log(`\nwrote ${jsonPath} and ${xmlPath}`);
if (comparison?.config_changes.length && !args.allowConfigChange) {
  fail(`--compare: run ${comparison.base_run_id} differs in ${comparison.config_changes.map((c) => c.field).join(", ")}; compare runs of one configuration, or pass --allow-config-change`);
}
process.exit(checks.every((c) => c.ok) ? 0 : 1);
