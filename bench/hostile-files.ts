// npm run bench:hostile (needs a production build: npx next build)
//
// Issue 37's hostile upload files (tests/helpers/hostile-files.ts: small as sent, huge once
// unpacked or read), sent one after another to POST /api/v1/imports/upload of one production
// server on a fresh embedded database, as an attacker with a write key would. While each runs,
// /ready is probed every 100 ms (each probe times out at 10 s: a hang) and the server's
// resident memory (its process group, worker threads included) is sampled every 200 ms.
// Printed per attack: the status, the /ready p99 and slowest probe, the RSS peak; then the
// totals the issue sets targets for: 0 x 5xx, 0 hangs, /ready p99 < 1 s, RSS peak < 1.5 GB, and
// the server answering an ordinary import after each. BENCH_UNPACKED_MB (default 1024) is the
// server's streamed-export unpacked bound for the "spaces" attack (BENCH_SPACES_MB, default
// 1536 MB of spaces in a zip of ~1.5 MB). Then valid uploads whose parse is costly: the 60 MB
// conversation imported to its end, the files read whole (dry runs) until their 202, when their
// parse is done; /ready and the server's CPU-seconds meanwhile. BENCH_ONLY (a regular expression) runs only the attacks and imports whose name it
// matches. Prints the load average: the machine is shared.

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { makeTempDir, percentile, printMachine, removeDir, runMain } from "./lib/common";
import { startBuiltServer } from "./lib/start-server-dist";
import { attacks, chatgptChain, heavyImports, spacesExport, type Attack } from "../tests/helpers/hostile-files";
import { groupCpuSeconds } from "./lib/proc-cpu";

const MB = 1024 * 1024;
const UNPACKED_MB = Number(process.env.BENCH_UNPACKED_MB || 1024);
const SPACES_MB = Number(process.env.BENCH_SPACES_MB || 1536);
const HANG_MS = 10_000;
const load = () => os.loadavg().map((x) => x.toFixed(2)).join(" ");

/** Resident memory of a process group, in MB (VmRSS summed over its processes). */
function groupRssMb(pgid: number): number {
  let kb = 0;
  for (const d of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, "utf8");
      if (Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]) !== pgid) continue;
      const m = /VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${d}/status`, "utf8"));
      if (m) kb += Number(m[1]);
    } catch {
      /* gone */
    }
  }
  return kb / 1024;
}

type Row = { name: string; status: number | string; expected: number; ms: number; cpuS: number; readyP99: number; readySlowest: number; hangs: number; rssPeak: number; after: boolean };

runMain("bench:hostile", async (onCleanup) => {
  printMachine();
  const dir = makeTempDir("memscope-bench-hostile-");
  onCleanup(() => removeDir(dir));
  const only = process.env.BENCH_ONLY ? new RegExp(process.env.BENCH_ONLY) : null;
  const list: Attack[] = [...(await attacks()), spacesExport(SPACES_MB * MB)].filter((a) => !only || only.test(a.name));
  console.log(`${list.length} attacks built; load average ${load()}`);
  const server = await startBuiltServer(path.join(dir, "data"), undefined, undefined, { MEMSCOPE_IMPORT_MAX_UNPACKED_BYTES: String(UNPACKED_MB * MB) });
  onCleanup(() => server.stop());
  const rssIdle = groupRssMb(server.pid);
  console.log(`server up; RSS at rest ${rssIdle.toFixed(0)} MB; streamed-export unpacked bound ${UNPACKED_MB} MB for this run`);

  const upload = async (a: Pick<Attack, "body" | "query">) => {
    const r = await fetch(`${server.base}/api/v1/imports/upload?${new URLSearchParams(a.query)}`, {
      method: "POST",
      headers: { "content-type": "application/octet-stream" },
      body: Buffer.from(a.body),
      signal: AbortSignal.timeout(300_000),
    });
    return { status: r.status, body: (await r.json()) as { id?: string; error?: { code: string } } };
  };
  /** After each attack: a small, ordinary import must still go through to its end. */
  const ordinary = async (k: number) => {
    const r = await upload({ body: chatgptChain(3), query: { format: "chatgpt", dry_run: "true", file_name: `after-${k}` } });
    if (r.status !== 202 || !r.body.id) return false;
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      const j = (await (await fetch(`${server.base}/api/v1/imports/${r.body.id}`)).json()) as { status: string };
      if (j.status === "done") return true;
      if (j.status !== "running") return false;
      await new Promise((res) => setTimeout(res, 200));
    }
    return false;
  };

  const rows: Row[] = [];
  let k = 0;
  for (const a of list) {
    k++;
    const probes: number[] = [];
    let hangs = 0;
    let rssPeak = groupRssMb(server.pid);
    let stop = false;
    const prober = (async () => {
      while (!stop) {
        const t = performance.now();
        const ok = await fetch(`${server.base}/api/v1/ready`, { signal: AbortSignal.timeout(HANG_MS) }).then((r) => r.ok, () => false);
        const took = performance.now() - t;
        if (!ok) hangs++;
        probes.push(ok ? took : HANG_MS);
        await new Promise((res) => setTimeout(res, 100));
      }
    })();
    const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, groupRssMb(server.pid))), 200);
    const t0 = performance.now();
    const cpu0 = (groupCpuSeconds(server.pid) ?? 0);
    let status: number | string;
    try {
      status = (await upload(a)).status;
    } catch (e) {
      status = `no answer (${(e as Error).name})`;
    }
    const ms = performance.now() - t0;
    const cpuS = (groupCpuSeconds(server.pid) ?? 0) - cpu0;
    stop = true;
    await prober;
    clearInterval(sampler);
    const sorted = [...probes].sort((x, y) => x - y);
    const after = await ordinary(k);
    const row: Row = { name: a.name, status, expected: a.status, ms, cpuS, readyP99: sorted.length ? percentile(sorted, 99) : NaN, readySlowest: sorted.at(-1) ?? NaN, hangs, rssPeak, after };
    rows.push(row);
    console.log(
      `${String(k).padStart(2)}. ${a.name.padEnd(52)} ${String(status).padEnd(4)} (want ${a.status})  ${(ms / 1000).toFixed(1).padStart(5)} s (server ${cpuS.toFixed(1)} CPU-s)  /ready p99 ${row.readyP99.toFixed(0).padStart(5)} ms, slowest ${row.readySlowest.toFixed(0).padStart(5)} ms, ${hangs} hang(s)  RSS peak ${rssPeak.toFixed(0)} MB  ${after ? "then answers" : "THEN FAILS"}  load ${os.loadavg()[0].toFixed(1)}`,
    );
  }
  /** An accepted upload: /ready and the server's CPU until the job ends (toEnd), or until its 202 (the parse of a file read whole is done before it; the job is then cancelled). */
  const accepted = async (name: string, body: Uint8Array, query: Record<string, string>, toEnd: boolean) => {
    const probes: number[] = [];
    let stop = false;
    let rssPeak = groupRssMb(server.pid);
    const prober = (async () => {
      while (!stop) {
        const t = performance.now();
        const ok = await fetch(`${server.base}/api/v1/ready`, { signal: AbortSignal.timeout(HANG_MS) }).then((r) => r.ok, () => false);
        probes.push(ok ? performance.now() - t : HANG_MS);
        await new Promise((res) => setTimeout(res, 100));
      }
    })();
    const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, groupRssMb(server.pid))), 200);
    const t0 = performance.now();
    const cpu0 = groupCpuSeconds(server.pid) ?? 0;
    const r = await upload({ body, query });
    const answered = performance.now() - t0;
    let status = `upload ${r.status}${"total" in r.body ? `, total ${String(r.body.total)}` : ""}`;
    if (!toEnd && r.body.id) await fetch(`${server.base}/api/v1/imports/${r.body.id}/cancel`, { method: "POST" });
    for (const deadline = Date.now() + 600_000; toEnd && r.body.id && Date.now() < deadline; ) {
      const j = (await (await fetch(`${server.base}/api/v1/imports/${r.body.id}`)).json()) as { status: string; counts: { turns: number; memories: number; conversations: number } };
      if (j.status !== "running") {
        status = `${j.status}, ${j.counts.conversations} conversations, ${j.counts.turns} turns, ${j.counts.memories} memories`;
        break;
      }
      await new Promise((res) => setTimeout(res, 250));
    }
    const ms = performance.now() - t0;
    const cpuS = (groupCpuSeconds(server.pid) ?? 0) - cpu0;
    stop = true;
    await prober;
    clearInterval(sampler);
    const sorted = [...probes].sort((x, y) => x - y);
    console.log(
      `accepted: ${name} (${(body.length / MB).toFixed(1)} MB sent): ${status}  answered in ${(answered / 1000).toFixed(1)} s, done in ${(ms / 1000).toFixed(1)} s (server ${cpuS.toFixed(1)} CPU-s)  /ready p99 ${percentile(sorted, 99).toFixed(0)} ms, slowest ${sorted.at(-1)!.toFixed(0)} ms  RSS peak ${rssPeak.toFixed(0)} MB  load ${load()}`,
    );
  };
  // Issue 37 item 1: an accepted upload whose one record (a 60 MB conversation of 600 nodes of
  // 100 KB) is parsed in the JSON worker.
  if (!only || only.test("accepted: one 60 MB ChatGPT conversation")) {
    const text = (i: number) => `${i} ${"lorem ipsum dolor sit amet ".repeat(3800)}`;
    const mapping: Record<string, unknown> = { root: { id: "root", message: null, parent: null, children: ["u0"] } };
    for (let t = 0; t < 300; t++) {
      mapping[`u${t}`] = { id: `u${t}`, parent: t ? `a${t - 1}` : "root", children: [`a${t}`], message: { id: `u${t}`, author: { role: "user" }, create_time: 1700000000 + 2 * t, content: { content_type: "text", parts: [text(2 * t)] } } };
      mapping[`a${t}`] = { id: `a${t}`, parent: `u${t}`, children: t < 299 ? [`u${t + 1}`] : [], message: { id: `a${t}`, author: { role: "assistant" }, create_time: 1700000001 + 2 * t, recipient: "all", content: { content_type: "text", parts: [text(2 * t + 1)] } } };
    }
    const body = Buffer.from(JSON.stringify([{ id: "huge-record", title: "one huge conversation", create_time: 1700000000, mapping, current_node: "a299" }]));
    await accepted("one 60 MB ChatGPT conversation (parsed in the JSON worker)", body, { format: "chatgpt", dry_run: "false", file_name: "huge-record" }, true);
  }
  // Valid files read whole whose parse is costly (the upload parse worker), each a dry run.
  for (const h of heavyImports()) if (!only || only.test(h.name)) await accepted(h.name, h.body, h.query, false);
  const all = rows;
  const fivexx = all.filter((r) => typeof r.status === "number" && r.status >= 500).length;
  const unanswered = all.filter((r) => typeof r.status !== "number").length;
  const wrong = all.filter((r) => r.status !== r.expected).length;
  const hangs = all.reduce((n, r) => n + r.hangs, 0) + unanswered;
  const p99 = all.length ? Math.max(...all.map((r) => r.readyP99)) : NaN;
  const peak = all.length ? Math.max(...all.map((r) => r.rssPeak)) : NaN;
  console.log("");
  console.log(`5xx: ${fivexx}; hangs: ${hangs}; answers other than expected: ${wrong}; worst /ready p99 during an attack: ${p99.toFixed(0)} ms; server RSS peak ${peak.toFixed(0)} MB (at rest ${rssIdle.toFixed(0)} MB); ordinary import after each: ${all.every((r) => r.after) ? "yes" : "NO"}`);
  console.log(`targets: 0 x 5xx, 0 hangs, /ready p99 < 1000 ms, RSS peak < 1536 MB; load average now ${load()}`);
});
