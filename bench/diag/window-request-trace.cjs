// Preloaded into the built server (node --require) by bench/diag/window-cold-tail.ts: per POST
// /api/v1/window, the request's wall time, the main thread's CPU and its time waiting for a core
// (/proc/<pid>/task/<tid>/schedstat, nanoseconds), the other threads' CPU (V8's GC and compiler
// helpers, the token pool: Node 20 names them all "node"), involuntary context switches and the
// GC pauses inside it (perf_hooks). One JSON line a request, appended to WINDOW_TRACE_OUT.
"use strict";
const fs = require("node:fs");
const http = require("node:http");
const { PerformanceObserver, performance, constants } = require("node:perf_hooks");

const out = process.env.WINDOW_TRACE_OUT;
const pid = process.pid;
const gcs = [];
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) gcs.push({ start: e.startTime, end: e.startTime + e.duration, kind: e.detail ? e.detail.kind : e.kind });
  if (gcs.length > 5000) gcs.splice(0, 2500);
}).observe({ entryTypes: ["gc"] });

function sched() {
  let main = [0, 0];
  let others = 0;
  let othersWait = 0;
  for (const t of fs.readdirSync(`/proc/${pid}/task`)) {
    let f;
    try {
      f = fs.readFileSync(`/proc/${pid}/task/${t}/schedstat`, "utf8").split(" ");
    } catch {
      continue;
    }
    if (Number(t) === pid) main = [Number(f[0]), Number(f[1])];
    else {
      others += Number(f[0]);
      othersWait += Number(f[1]);
    }
  }
  return { mainCpu: main[0], mainWait: main[1], others, othersWait };
}
const gcKind = { [constants.NODE_PERFORMANCE_GC_MAJOR]: "major", [constants.NODE_PERFORMANCE_GC_MINOR]: "minor", [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: "incremental", [constants.NODE_PERFORMANCE_GC_WEAKCB]: "weakcb" };

const emit = http.Server.prototype.emit;
http.Server.prototype.emit = function (ev, req, res) {
  if (ev === "request" && out && req.method === "POST" && req.url.startsWith("/api/v1/window")) {
    const t0 = performance.now();
    const s0 = sched();
    const ru0 = process.resourceUsage();
    res.on("finish", () => {
      const t1 = performance.now();
      const s1 = sched();
      const ru1 = process.resourceUsage();
      const inReq = gcs.filter((g) => g.end > t0 && g.start < t1);
      const pauses = {};
      for (const g of inReq) {
        const k = gcKind[g.kind] || String(g.kind);
        pauses[k] = (pauses[k] || 0) + (Math.min(g.end, t1) - Math.max(g.start, t0));
      }
      fs.appendFileSync(
        out,
        JSON.stringify({
          t0,
          wall: t1 - t0,
          mainCpu: (s1.mainCpu - s0.mainCpu) / 1e6,
          mainWait: (s1.mainWait - s0.mainWait) / 1e6,
          others: (s1.others - s0.others) / 1e6,
          othersWait: (s1.othersWait - s0.othersWait) / 1e6,
          invol: ru1.involuntaryContextSwitches - ru0.involuntaryContextSwitches,
          gc: pauses,
          heapUsed: process.memoryUsage().heapUsed,
        }) + "\n",
      );
    });
  }
  return emit.apply(this, arguments);
};
