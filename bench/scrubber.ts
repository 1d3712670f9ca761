// npm run bench:scrubber  (needs a production build: npx next build; never builds)
//
// The replay page's turn scrubber in a real browser (Debian's Chromium driven by
// playwright-core) on the 646-turn demo conversation ("Trip companion") with bench:replay's
// data set (BENCH_MEMORIES memories of its user, the auto_context profile, k = 10): the page
// is opened on one turn, the scrubber focused, and then the Right arrow pressed BENCH_STEPS
// times, each time waiting until the view has settled on the new turn before the next press.
// Every turn stepped onto is one the page has not shown before (and one the page itself did
// not ask for before the walk started, beyond what its own prefetching asks for).
//
// A step's time is from the key press (the keydown event's timestamp, the page's clock) to
// the first animation frame at which the view is settled: the scrubber says "Turn k+1", the
// replay shown is that turn's (not the previous one kept on screen), nothing is being fetched
// for it, and the comparison with the previous turn is drawn. Target: every step <= 200 ms.
//
// Knobs (env): BENCH_MEMORIES (10 000), BENCH_STEPS (40), BENCH_FROM (thread index of the
// first turn, default: the middle minus half the steps), BENCH_DATA_DIR (a folder kept by
// bench:replay / bench/diag/replay-profile.ts, or by this script: its bench-replay.json
// marker; copied, not reloaded; without the marker the data set is loaded and kept there), BENCH_DIRECTION (right | left), BENCH_TRACE=<file>: a Chromium performance trace
// of the walk (chrome://tracing / DevTools), to see where a slow step spends its time.
// BENCH_CPU_PROFILE=<file>: the page's JavaScript sampled over the walk (a .cpuprofile for DevTools).
// BENCH_CPU_THROTTLE=<rate>: Chromium's CPU throttling (DevTools' "4x slowdown" is 4) during the walk.
//
// Beside the wall-clock figures (which on a shared machine measure the machine as much as the
// page) it prints CPU time: the page's renderer (CDP Performance.getMetrics: ProcessTime, and the
// main thread's TaskDuration / ScriptDuration / LayoutDuration) per step, and the server's
// process group (utime + stime from /proc) over the walk, with the load average beside them.

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromium } from "playwright-core";
import { DEFAULT_PROJECT_ID, projectSql } from "../lib/db/project-sql";
import { openDatabase } from "../lib/db/open-database";
import { createProfileVersion } from "../lib/profiles/profile-versions";
import { ZProfileVersionCreate } from "../lib/profiles/schemas";
import { chromiumPath } from "../tests/helpers/browser";
import { makeTempDir, ms, now, printMachine, removeDir, runMain, stats } from "./lib/common";
import { loadReplayDataset, REPLAY_CONVERSATION, REPLAY_PROFILE, REPLAY_USER } from "./lib/replay-dataset";
import { startBuiltServer } from "./lib/start-server-dist";
import { groupCpuSeconds } from "./lib/proc-cpu";

const MEMORIES = Number(process.env.BENCH_MEMORIES || 10_000);
const STEPS = Number(process.env.BENCH_STEPS || 40);
const TARGET = 200;
const LEFT = process.env.BENCH_DIRECTION === "left";
// BENCH_MODE=held (default): each key as soon as the view has settled, as a held arrow key
// would; the server's replay time bounds every step there. BENCH_MODE=reading: each key once
// the next turn's replay has been answered (fetched ahead) and no replay is in flight, at most
// 3 s, as a person reading each turn before the next.
const READING = process.env.BENCH_MODE === "reading";
const READ_MS = 3000;
const THROTTLE = Number(process.env.BENCH_CPU_THROTTLE || 1);
const load = () => os.loadavg().map((x) => x.toFixed(2)).join(" / ");

/** In the page: is the view settled on turn `n` (1-based) of the thread? */
function settledOn(n: number): boolean {
  const pos = document.querySelector('[data-testid="scrub-position"]')?.textContent ?? "";
  if (!new RegExp(`^Turn ${n.toLocaleString("en")} of`).test(pos.trim())) return false;
  const panel = document.getElementById("replay-panel");
  if (!panel || panel.getAttribute("aria-busy") !== "false") return false;
  // The panes show that turn (they follow the position in a deferred render; older builds have no data-turn).
  const shown = panel.getAttribute("data-turn");
  if (shown !== null && shown !== String(n)) return false;
  // The previous turn's answer stays on screen, dimmed, while the new one loads.
  if (panel.querySelector(".opacity-60")) return false;
  if (!panel.querySelector('[data-testid="prompt-then"]')) return false;
  // The comparison with the previous turn is drawn (data-memories-in only once it is computed).
  return !!document.querySelector('[data-testid="step-diff"][data-memories-in]');
}

runMain("bench:scrubber", async (cleanup) => {
  printMachine();
  console.log(`Load average at start (1 / 5 / 15 min): ${load()}`);
  delete process.env.MEMSCOPE_CHAT_BASE_URL;
  const dir = makeTempDir("memscope-bench-scrubber-");
  cleanup(() => removeDir(dir));

  const kept = process.env.BENCH_DATA_DIR;
  const marker = kept && path.join(kept, "bench-replay.json");
  let thread: string[];
  const t0 = now();
  if (marker && fs.existsSync(marker)) {
    fs.cpSync(kept, dir, { recursive: true });
    thread = JSON.parse(fs.readFileSync(marker, "utf8")).turns;
    console.log(`Copied the kept data set ${kept} in ${((now() - t0) / 1000).toFixed(1)} s`);
  } else {
    const db = await openDatabase({ kind: "pglite", dataDir: dir });
    thread = await loadReplayDataset(db, MEMORIES);
    await createProfileVersion(projectSql(db.sql, DEFAULT_PROJECT_ID), "travel-planner", ZProfileVersionCreate.parse(REPLAY_PROFILE));
    await db.close();
    console.log(`Loaded in ${((now() - t0) / 1000).toFixed(1)} s`);
    // Kept for the next run (bench:replay reads the same folder and marker).
    if (kept) {
      fs.cpSync(dir, kept, { recursive: true });
      fs.writeFileSync(path.join(kept, "bench-replay.json"), JSON.stringify({ turns: thread }));
    }
  }
  console.log(`Thread of ${thread.length} turns, ${MEMORIES.toLocaleString("en")} memories of ${REPLAY_USER}`);

  const server = await startBuiltServer(dir);
  cleanup(() => server.stop());

  const browser = await chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage"],
  });
  cleanup(() => browser.close());
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });

  const mid = Math.floor(thread.length / 2);
  const from = process.env.BENCH_FROM ? Number(process.env.BENCH_FROM) : LEFT ? Math.min(thread.length - 1, mid + Math.floor(STEPS / 2)) : Math.max(0, mid - Math.floor(STEPS / 2));
  const steps = Math.min(STEPS, LEFT ? from : thread.length - 1 - from);
  // The page warms up (scripts parsed, first replay) on an unrelated turn first, so the first
  // timed step is not paying for the page's start-up; then the walk's first turn is opened.
  // The check, as source text, defined in every document the tab opens.
  // (tsx may wrap inner functions in __name(): a no-op one is defined beside it.)
  await page.addInitScript(`window.__name = (f) => f; window.__settled = ${settledOn.toString()}`);
  const open = async (i: number) => {
    await page.goto(`${server.base}/inspect/replay?conversation=${REPLAY_CONVERSATION}&turn=${thread[i]}`);
    await page.waitForFunction(`window.__settled(${i + 1})`, undefined, { timeout: 60_000, polling: "raf" });
  };
  // BENCH_STYLE=<css>: a stylesheet added to every document the tab opens, to weigh a CSS change without a build.
  if (process.env.BENCH_STYLE) await page.addInitScript(`document.addEventListener("DOMContentLoaded", () => { const s = document.createElement("style"); s.textContent = ${JSON.stringify(process.env.BENCH_STYLE)}; document.head.append(s); })`);
  await open(LEFT ? 5 : thread.length - 5);
  await open(from);
  // Requests the page makes while idle on the first turn (its own prefetching) are not part of a step.
  await page.waitForLoadState("networkidle");
  const replays: { turn: string; ms: number }[] = [];
  const answered = new Set<string>();
  // POST /replay requests in flight (the page's own and its prefetches).
  let inFlight = 0;
  const isReplay = (req: { url(): string }) => req.url().endsWith("/api/v1/replay");
  page.on("request", (req) => isReplay(req) && inFlight++);
  // Every request the page makes during the walk, by method and path: the server's CPU per step is theirs together.
  let walking = false;
  const requests = new Map<string, number>();
  page.on("request", (req) => {
    if (!walking) return;
    const k = `${req.method()} ${new URL(req.url()).pathname.replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, ":id")}`;
    requests.set(k, (requests.get(k) ?? 0) + 1);
  });
  page.on("requestfailed", (req) => isReplay(req) && inFlight--);
  page.on("requestfinished", (req) => {
    if (!isReplay(req)) return;
    inFlight--;
    const t = req.timing();
    try {
      const turn = JSON.parse(req.postData() ?? "{}").message_id;
      answered.add(turn);
      replays.push({ turn, ms: t.responseEnd - t.requestStart });
    } catch {
      /* not JSON */
    }
  });
  await page.focus('[data-testid="scrub-range"]');
  await page.evaluate(() => {
    const w = window as unknown as { __keyAt: number };
    document.addEventListener("keydown", (e) => (w.__keyAt = e.timeStamp), { capture: true });
  });
  const trace = process.env.BENCH_TRACE;
  if (trace) await browser.startTracing(page, { path: trace, screenshots: false });
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Performance.enable");
  if (THROTTLE !== 1) await cdp.send("Emulation.setCPUThrottlingRate", { rate: THROTTLE });
  const metrics = async () => Object.fromEntries(((await cdp.send("Performance.getMetrics")) as { metrics: { name: string; value: number }[] }).metrics.map((m) => [m.name, m.value]));
  const profile = process.env.BENCH_CPU_PROFILE;
  if (profile) {
    await cdp.send("Profiler.enable");
    await cdp.send("Profiler.setSamplingInterval", { interval: 200 });
    await cdp.send("Profiler.start");
  }
  const m0 = await metrics();
  const server0 = (groupCpuSeconds(server.pid) ?? 0);
  walking = true;

  const samples: number[] = [];
  const toPosition: number[] = [];
  const loadAt: string[] = [];
  for (let s = 1; s <= steps; s++) {
    const target = LEFT ? from - s : from + s;
    // A reader: the next key once the page has the next turn's replay (fetched ahead) and
    // nothing else in flight; at most READ_MS (a page that fetches nothing ahead).
    if (READING) {
      const until = Date.now() + READ_MS;
      while (Date.now() < until && (inFlight > 0 || !answered.has(thread[target]))) await new Promise((r) => setTimeout(r, 5));
    }
    await page.keyboard.press(LEFT ? "ArrowLeft" : "ArrowRight");
    // First the frame that shows the new position (the key handled and rendered), then the settled view.
    const moved = await page.waitForFunction(`/^Turn ${(target + 1).toLocaleString("en")} of/.test(document.querySelector('[data-testid="scrub-position"]')?.textContent ?? "") ? performance.now() : 0`, undefined, { timeout: 30_000, polling: "raf" });
    const movedAt = (await moved.jsonValue()) as number;
    const handle = await page.waitForFunction(`window.__settled(${target + 1}) ? performance.now() : 0`, undefined, { timeout: 30_000, polling: "raf" });
    const at = (await handle.jsonValue()) as number;
    const keyAt = await page.evaluate(() => (window as unknown as { __keyAt: number }).__keyAt);
    samples.push(at - keyAt);
    toPosition.push(movedAt - keyAt);
    if (s % 10 === 0) loadAt.push(os.loadavg()[0].toFixed(2));
  }
  const m1 = await metrics();
  walking = false;
  const serverCpu = (groupCpuSeconds(server.pid) ?? 0) - server0;
  if (profile) fs.writeFileSync(profile, JSON.stringify(((await cdp.send("Profiler.stop")) as { profile: unknown }).profile));
  if (THROTTLE !== 1) await cdp.send("Emulation.setCPUThrottlingRate", { rate: 1 });
  if (trace) await browser.stopTracing();
  const perStep = (k: string) => ms(((m1[k] ?? 0) - (m0[k] ?? 0)) * 1000 / Math.max(1, steps));

  const st = stats(samples);
  const api = stats(replays.map((r) => r.ms).filter((x) => x >= 0));
  console.log(`\n=== The replay scrubber in Chromium (headless, 1440x900): ${steps} steps (${LEFT ? "Left" : "Right"} arrow) from turn ${from + 1} of ${thread.length}, each onto a turn not shown before, ${READING ? "reading (next key once no replay is in flight)" : "held key (next key as soon as the view settled)"}, CPU throttling ${THROTTLE}x ===`);
  console.log(`| measure | n | p50 ms | p95 ms | max ms | target |`);
  console.log(`|---|---:|---:|---:|---:|---|`);
  console.log(`| key press → settled view | ${st.n} | ${ms(st.p50)} | ${ms(st.p95)} | ${ms(st.max)} | every step <= ${TARGET} ms: ${st.max <= TARGET ? "met" : "MISSED"} (${samples.filter((x) => x > TARGET).length} over) |`);
  const sp = stats(toPosition);
  console.log(`| key press → new position drawn (the scrubber's own frame) | ${sp.n} | ${ms(sp.p50)} | ${ms(sp.p95)} | ${ms(sp.max)} | |`);
  console.log(`| POST /replay as the browser saw it (during the walk) | ${api.n} | ${ms(api.p50)} | ${ms(api.p95)} | ${ms(api.max)} | |`);
  console.log(`CPU per step (the walk's total / ${steps}; the reading pauses' prefetch handling included): renderer process ${perStep("ProcessTime")} ms; its main thread's tasks ${perStep("TaskDuration")} ms (script ${perStep("ScriptDuration")}, layout ${perStep("LayoutDuration")}, style ${perStep("RecalcStyleDuration")}); server ${ms((serverCpu * 1000) / Math.max(1, steps))} ms (${serverCpu.toFixed(2)} CPU-s over the walk)`);
  // What the last step drew: the prompt's bubbles and which of them carry the "new since" tag (a sanity check of the render).
  const drawn = await page.evaluate(() => {
    const bubbles = [...document.querySelectorAll('[data-testid="prompt-then"] [data-testid="prompt-bubble"]')];
    return { n: bubbles.length, tagged: bubbles.flatMap((b, i) => (b.querySelector('[data-testid="diff-only"]') ? [i + 1] : [])), memories: bubbles.findIndex((b) => b.querySelector('[data-testid="bubble-memories"]')) + 1 };
  });
  console.log(`Last step drew ${drawn.n} prompt bubbles; tagged new: #${drawn.tagged.join(", #")}; memories in #${drawn.memories}`);
  console.log(`Requests during the walk: ${[...requests].sort((a, b) => b[1] - a[1]).map(([k, n]) => `${k} x${n}`).join(", ")}`);
  console.log(`Steps (ms): ${samples.map((x) => Math.round(x)).join(", ")}`);
  console.log(`Load average (1 min) every 10 steps: ${loadAt.join(", ")}; at the end (1 / 5 / 15 min): ${load()}`);
});
