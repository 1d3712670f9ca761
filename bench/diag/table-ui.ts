// npx tsx --conditions=react-server bench/diag/table-ui.ts <data-dir> <user>
//
// The /memories table in a real browser on an existing data set (e.g. the folder
// bench:memories keeps with BENCH_KEEP_DATA=1, user bench-user): first rows, cursor
// pages while scrolling, search / type filter / sort through the UI controls, rows in
// the DOM, and a screenshot (test-results/screenshots/memories-100k.png). Serves the
// existing production build (MEMSCOPE_NEXT_DIST_DIR selects it; never builds). The
// folder is opened by the server, so nothing else may have it open; use a copy.
//
// Env: TABLE_UI_RUNS (first-rows loads, 5), TABLE_UI_ROWS (rows to scroll to, 2000),
// TABLE_UI_MAX_PAGES (cap on cursor pages, 25), TABLE_UI_CONTROL_RUNS (loads per control scenario, 3).

import fs from "node:fs";
import path from "node:path";
import { ms, printMachine, runMain } from "../lib/common";
import { startBuiltServer } from "../lib/start-server-dist";
import { tableUiPhase, type LongTasks, type Timing } from "../lib/table-ui-phase";

const num = (k: string, d: number) => (process.env[k] ? Number(process.env[k]) : d);

runMain("diag:table-ui", async (cleanup) => {
  const [dirArg, user] = process.argv.slice(2);
  if (!dirArg || !user) throw new Error("usage: bench/diag/table-ui.ts <data-dir> <user>");
  const dir = path.resolve(dirArg);
  if (!fs.existsSync(path.join(dir, "PG_VERSION"))) throw new Error(`${dir} is not a PGlite data folder`);
  printMachine();
  const server = await startBuiltServer(dir);
  cleanup(() => server.stop());

  const r = await tableUiPhase(server.base, user, {
    firstRowsRuns: num("TABLE_UI_RUNS", 5),
    scrollTargetRows: num("TABLE_UI_ROWS", 2000),
    scrollMaxPages: num("TABLE_UI_MAX_PAGES", 25),
    controlRuns: num("TABLE_UI_CONTROL_RUNS", 3),
  });

  const t = (x: Timing) => (x.n ? `${ms(x.p50)} / ${ms(x.p95)} / ${ms(x.max)}` : "—");
  const lt = (x: LongTasks) => (x.count ? `${x.count} (max ${x.maxMs}, total ${x.totalMs})` : "0");
  const f = (n: number) => n.toLocaleString("en");

  console.log(`\n/memories for ${r.user}: ${r.userTotal === null ? "?" : f(r.userTotal)} memories (${r.userActive === null ? "?" : f(r.userActive)} active), page size ${r.pageSize}, viewport ${r.viewport.width}x${r.viewport.height}, Chromium headless\n`);
  console.log("| measure | n | p50 / p95 / max ms | in the browser: API p50 / max ms | long tasks (ms) | notes |");
  console.log("|---|---:|---:|---:|---|---|");
  const fr = r.firstRows;
  console.log(
    `| navigation → first rows | ${fr.toRows.n} | ${t(fr.toRows)} | list ${ms(fr.listApi.p50)} / ${ms(fr.listApi.max)}; users ${fr.usersApi.n ? `${ms(fr.usersApi.p50)} / ${ms(fr.usersApi.max)}` : "—"} | ${lt(fr.longTasks)} | HTML TTFB p50 ${ms(fr.htmlTtfb.p50)} ms; DOMContentLoaded p50 ${ms(fr.domContentLoaded.p50)} ms; ${fr.scripts.count} scripts, ${f(fr.scripts.decodedKiB)} KiB (${f(fr.scripts.transferKiB)} KiB transferred, warm cache); list request sent at p50 ${ms(fr.listStart.p50)} ms, answered at ${ms(fr.listEnd.p50)} ms (memory-users ${ms(fr.usersStart.p50)} → ${ms(fr.usersEnd.p50)} ms); cold first load ${ms(fr.coldToRows)} ms; ${fr.domRows} rows in the DOM |`,
  );
  const s = r.scroll;
  console.log(
    `| scroll → next cursor page shown | ${s.perPage.n} | ${t(s.perPage)} | ${s.perPageApi.n ? `${ms(s.perPageApi.p50)} / ${ms(s.perPageApi.max)}` : "—"} | ${lt(s.longTasks)} | ${f(s.rowsLoaded)} rows loaded${s.more ? " (more available)" : ""}; ${s.domRows} row elements, ${f(s.domElements)} elements in the DOM; grid ${f(s.scrollHeightPx)} px tall, scrolled to ${f(s.scrollTopPx)} px (rows from #${f(s.firstDomIndex)} in the DOM) |`,
  );
  for (const c of r.controls) {
    console.log(
      `| ${c.label} → rows shown | ${c.toRows.n} | ${t(c.toRows)} | ${c.api.n ? `${ms(c.api.p50)} / ${ms(c.api.max)}` : "—"} | ${lt(c.longTasks)} | ${c.action}; first page ${c.firstPageRows}${c.more ? "+" : ""} rows; \`${c.query}\` |`,
    );
  }
  console.log(`\nSamples (ms): first rows ${fr.toRows.samples.join(", ")}; pages ${s.perPage.samples.join(", ")}`);
  for (const c of r.controls) console.log(`  ${c.label}: ${c.toRows.samples.join(", ")} (API ${c.api.samples.join(", ")})`);
  console.log(`Screenshot: ${path.relative(process.cwd(), r.screenshot) || r.screenshot}`);
});
