// npm run import -- [--format FORMAT] [--dry-run] [--app-id ID] [--end-user ID] [--user-from namespace[i]] <file|folder|url|dify-app-id>
//
// Talks to a running Memscope (MEMSCOPE_URL, default http://localhost:3000; MEMSCOPE_API_KEY
// as a Bearer key when set): streams the file (or what the URL serves) to POST
// /api/v1/imports/upload (a folder is zipped first: a /memories folder, Claude Code's memory
// folder, an AgentScope workspace), shows progress, and ends with
//   imported: N conversations, N turns, N memories; skipped N; failed N
// With --format dify-db the argument is the Dify app id (without one, the apps are listed).
// Exit status: 0 when every record imported or was skipped, 1 otherwise.

import fs from "node:fs";
import path from "node:path";
import { Readable } from "node:stream";
import { zipFolder } from "../lib/imports/zip-folder";
import { summaryLine, type DifyApps, type ImportJob } from "../lib/imports/schemas";
import { IMPORT_FORMATS } from "../lib/imports/types";

type Args = { format?: string; dryRun: boolean; appId?: string; endUser?: string; userFrom?: number; target?: string };

function parseArgs(argv: string[]): Args {
  const a: Args = { dryRun: false };
  for (let i = 0; i < argv.length; i++) {
    const x = argv[i];
    const value = () => {
      const v = argv[++i];
      if (v === undefined) fail(`${x} needs a value`);
      return v;
    };
    if (x === "--dry-run") a.dryRun = true;
    else if (x === "--format") a.format = value();
    else if (x.startsWith("--format=")) a.format = x.slice(9);
    else if (x === "--app-id") a.appId = value();
    else if (x === "--end-user") a.endUser = value();
    else if (x === "--user-from" || x.startsWith("--user-from=")) {
      // LangGraph: which part of a store namespace names the user, namespace[i] (0 = the first, -1 = the last, the default).
      const v = x === "--user-from" ? value() : x.slice(12);
      const m = /^namespace\[(-?\d{1,2})\]$/.exec(v.trim());
      if (!m) fail(`--user-from must be namespace[i] (0 the first part, -1 the last), got ${v}`);
      a.userFrom = Number(m[1]);
    }
    else if (x === "--help" || x === "-h") usage(0);
    else if (x.startsWith("--")) fail(`unknown option ${x}`);
    else if (a.target) fail(`one source at a time (got ${a.target} and ${x})`);
    else a.target = x;
  }
  if (a.format && !(IMPORT_FORMATS as readonly string[]).includes(a.format)) fail(`--format must be one of ${IMPORT_FORMATS.join(", ")}`);
  return a;
}

function usage(code: number): never {
  console.log(`usage: npm run import -- [--format ${IMPORT_FORMATS.join("|")}] [--dry-run] [--app-id ID] [--end-user ID] [--user-from namespace[i]] <file|folder|url|dify-app-id>`);
  process.exit(code);
}

function fail(message: string): never {
  console.error(`import: ${message}`);
  process.exit(1);
}

const base = (process.env.MEMSCOPE_URL || "http://localhost:3000").replace(/\/+$/, "");
const headers: Record<string, string> = { "content-type": "application/json" };
if (process.env.MEMSCOPE_API_KEY) headers.authorization = `Bearer ${process.env.MEMSCOPE_API_KEY}`;

async function call<T>(method: string, p: string, body?: unknown): Promise<T> {
  let r: Response;
  try {
    r = await fetch(`${base}/api/v1${p}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (e) {
    fail(`Memscope at ${base} did not answer (${(e as Error).cause ?? (e as Error).message}); start it or set MEMSCOPE_URL`);
  }
  return answer<T>(r);
}

async function answer<T>(r: Response): Promise<T> {
  const text = await r.text();
  let json;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  if (!r.ok) {
    const err = json?.error;
    const details = (err?.details ?? []).map((d: { field?: string; message: string }) => `  ${d.field ? `${d.field}: ` : ""}${d.message}`).join("\n");
    fail(`${r.status} ${err?.message ?? text.slice(0, 500)}${details ? `\n${details}` : ""}`);
  }
  return json as T;
}

/** The bytes to upload: a file streamed from disk, a folder zipped, or what a URL serves. */
async function readSource(target: string): Promise<{ body: BodyInit; name: string }> {
  if (/^https?:\/\//i.test(target)) {
    const r = await fetch(target).catch((e) => fail(`could not fetch ${target}: ${(e as Error).message}`));
    if (!r.ok || !r.body) fail(`${target} answered ${r.status}`);
    return { body: r.body, name: path.basename(new URL(target).pathname) || target };
  }
  if (!fs.existsSync(target)) fail(`no file ${target}`);
  const name = path.basename(path.resolve(target));
  if (fs.statSync(target).isDirectory()) return { body: Buffer.from(zipFolder(target)), name: `${name}/` };
  return { body: Readable.toWeb(fs.createReadStream(target)) as unknown as BodyInit, name };
}

async function upload(args: Args, target: string): Promise<ImportJob> {
  const { body, name } = await readSource(target);
  const q = new URLSearchParams({ file_name: name, dry_run: String(args.dryRun) });
  if (args.format) q.set("format", args.format);
  if (args.appId) q.set("app_id", args.appId);
  if (args.endUser) q.set("end_user_id", args.endUser);
  if (args.userFrom !== undefined) q.set("namespace_user_index", String(args.userFrom));
  let r: Response;
  try {
    r = await fetch(`${base}/api/v1/imports/upload?${q}`, {
      method: "POST",
      headers: { ...headers, "content-type": "application/octet-stream" },
      body,
      duplex: "half",
    } as RequestInit);
  } catch (e) {
    fail(`Memscope at ${base} did not answer (${(e as Error).cause ?? (e as Error).message}); start it or set MEMSCOPE_URL`);
  }
  return answer<ImportJob>(r);
}

function bar(job: ImportJob): string {
  const total = Math.max(job.total, job.processed, 1);
  const width = 30;
  const filled = Math.round((job.processed / total) * width);
  return `[${"#".repeat(filled)}${"-".repeat(width - filled)}] ${job.processed}/${job.total}`;
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  let body: Record<string, unknown> | null = null;
  if (args.format === "dify-db") {
    if (!args.target) {
      const apps = await call<DifyApps>("GET", "/imports/dify-apps");
      if (!apps.configured) fail("the server has no MEMSCOPE_DIFY_DATABASE_URL");
      if (apps.error) fail(apps.error);
      console.log("Dify apps (give one id):");
      for (const a of apps.data) console.log(`  ${a.id}  ${a.name} (${a.mode}): ${a.conversations} conversations, ${a.messages} messages${a.last_import_at ? `, imported up to ${a.last_import_at}` : ""}`);
      return;
    }
    body = { format: "dify-db", dify_app_id: args.target };
  } else if (args.format === "langgraph" && !args.target) {
    body = { format: "langgraph" }; // the store table of the server's MEMSCOPE_LANGGRAPH_DATABASE_URL
  } else if (!args.target) usage(1);
  let job: ImportJob;
  if (body) {
    if (args.appId) body.app_id = args.appId;
    if (args.endUser) body.end_user_id = args.endUser;
    if (args.userFrom !== undefined) body.namespace_user_index = args.userFrom;
    body.dry_run = args.dryRun;
    job = await call<ImportJob>("POST", "/imports", body);
  } else {
    job = await upload(args, args.target!);
  }
  const tty = process.stdout.isTTY;
  console.log(`${args.dryRun ? "dry run" : "import"} ${job.id} (${job.format}${job.label ? `, ${job.label}` : ""})`);
  let lastLine = "";
  while (job.status === "running" || job.status === "pending") {
    await new Promise((r) => setTimeout(r, 300));
    job = await call<ImportJob>("GET", `/imports/${job.id}`);
    const line = bar(job);
    if (line !== lastLine) {
      if (tty) process.stdout.write(`\r${line}`);
      lastLine = line;
    }
  }
  if (tty && lastLine) process.stdout.write("\n");
  for (const p of job.problems.slice(0, 10)) console.log(`  problem: ${p.record}${p.field ? ` ${p.field}` : ""}: ${p.message}`);
  if (job.problems.length > 10) console.log(`  ... ${job.problems.length - 10} more problems (GET /api/v1/imports/${job.id})`);
  if (job.error) console.log(`  stopped: ${job.error}`);
  console.log(summaryLine(job.counts, job.dry_run, job.unrepresented));
  process.exit(job.status === "done" && job.counts.failed === 0 ? 0 : 1);
}

main().catch((e) => fail((e as Error).message));
