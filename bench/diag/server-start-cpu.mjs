// The CPU-seconds of one test server's start (process start to /ready 200, then one signed-in
// request), with and without Node's module compile cache (NODE_COMPILE_CACHE, Node >= 22.1),
// interleaved so both see the same load. Each start gets a copy of the migrated template folder
// (tests/helpers/fresh-data-dir.ts), as an embedded test server does.
//
//   node bench/diag/server-start-cpu.mjs [node binary] [rounds]
//   e.g. node bench/diag/server-start-cpu.mjs /tmp/node24/bin/node 5    (after a build)
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const nodeBin = process.argv[2] || process.execPath;
const rounds = Number(process.argv[3] || 4);
const tmp = process.env.TMPDIR || os.tmpdir();
const template = [tmp, "/dev/shm/memscope-tests-0", os.tmpdir()]
  .flatMap((d) => (fs.existsSync(d) ? fs.readdirSync(d).filter((n) => n.startsWith("memscope-template-")).map((n) => path.join(d, n)) : []))
  .find((d) => fs.existsSync(path.join(d, "PG_VERSION")) || fs.readdirSync(d).length > 0);
if (!template) {
  console.error("no memscope-template-* folder: run an API test file once first");
  process.exit(2);
}
const cacheDir = fs.mkdtempSync(path.join(tmp, "memscope-compile-cache-"));
const ticks = (pid) => {
  const f = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) / 100; // own + waited-for children
};

async function start(cache) {
  const dir = fs.mkdtempSync(path.join(tmp, "memscope-start-"));
  fs.cpSync(template, dir, { recursive: true });
  const port = 20000 + Math.floor(Math.random() * 20000);
  const env = { PATH: process.env.PATH, HOME: process.env.HOME, TMPDIR: tmp, PORT: String(port), NODE_ENV: "production", NEXT_TELEMETRY_DISABLED: "1", MEMSCOPE_SEED: "0", MEMSCOPE_CHECK_RESPONSES: "1", MEMSCOPE_DATA_DIR: dir };
  if (cache) env.NODE_COMPILE_CACHE = cacheDir;
  const t0 = performance.now();
  const child = spawn(nodeBin, ["--liftoff-only", "scripts/serve.mjs"], { env, stdio: "ignore" });
  for (;;) {
    const r = await fetch(`http://127.0.0.1:${port}/api/v1/ready`).catch(() => null);
    if (r?.status === 200) break;
    if (child.exitCode !== null) throw new Error(`server exited ${child.exitCode}`);
    await new Promise((res) => setTimeout(res, 100));
  }
  await fetch(`http://127.0.0.1:${port}/api/v1/projects`).catch(() => null);
  const cpu = ticks(child.pid);
  const wall = (performance.now() - t0) / 1000;
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGTERM");
  await exited;
  fs.rmSync(dir, { recursive: true, force: true });
  return { cpu, wall };
}

const out = { off: [], on: [] };
await start(true); // fills the cache (not counted)
for (let i = 0; i < rounds; i++) {
  for (const mode of i % 2 ? ["on", "off"] : ["off", "on"]) {
    const r = await start(mode === "on");
    out[mode].push(r);
    console.log(`${mode.padEnd(3)} ${r.cpu.toFixed(2)} CPU-s, ${r.wall.toFixed(1)} s wall, load ${os.loadavg()[0].toFixed(1)}`);
  }
}
fs.rmSync(cacheDir, { recursive: true, force: true });
const mean = (a) => a.reduce((s, r) => s + r.cpu, 0) / a.length;
console.log(`${nodeBin} (${rounds} rounds): compile cache off ${mean(out.off).toFixed(2)} CPU-s a start, on ${mean(out.on).toFixed(2)} CPU-s`);
