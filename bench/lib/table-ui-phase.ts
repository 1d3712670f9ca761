// The /memories table in a real browser (Debian's Chromium driven by playwright-core):
// how long a user waits for the first rows, for each cursor page while scrolling, and
// for a server-side search, type filter and sort applied through the UI controls. Also
// how many row elements are in the DOM after scrolling (virtualization) and a
// screenshot. Times are taken with the page's own clock (performance.now(), whose
// origin is the navigation start), so Playwright's round trips are not in them; a
// "rendered" time is the first animation frame after the rows are in the DOM.
//
// Used by bench/diag/table-ui.ts. Prints nothing; everything is in the result.

import fs from "node:fs";
import path from "node:path";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { ROOT, stats, type Stats } from "./common";

export type TableUiOptions = {
  /** Page loads timed for the first rows (after one untimed warm-up load). */
  firstRowsRuns?: number;
  /** Scroll until at least this many rows are loaded ... */
  scrollTargetRows?: number;
  /** ... or this many cursor pages were loaded. */
  scrollMaxPages?: number;
  /** Page loads per search / filter / sort scenario. */
  controlRuns?: number;
  /** Where the screenshot goes. */
  screenshotPath?: string;
  viewport?: { width: number; height: number };
  /** Per wait (a page, a filter); exceeding it fails the phase. */
  timeoutMs?: number;
};

/** Stats plus the samples they came from (ms). */
export type Timing = Stats & { samples: number[] };

export type LongTasks = { count: number; totalMs: number; maxMs: number };

export type ControlResult = {
  label: string;
  /** What the user does: type into the search box, click a type chip, click a sort header. */
  action: string;
  /** The list request the table ends up showing (query string of GET /users/{user}/memories). */
  query: string;
  /** Rows of the first page the filter answers (at most the UI's page size), and whether more pages follow. */
  firstPageRows: number;
  more: boolean;
  /** From the UI event (input / click) to the first frame showing exactly the expected rows. Includes the search box's 250 ms debounce where there is one. */
  toRows: Timing;
  /** The list request's own duration in the browser (request start to response end). */
  api: Timing;
  longTasks: LongTasks;
};

export type TableUiResult = {
  url: string;
  user: string;
  viewport: { width: number; height: number };
  /** From GET /memory-users: the user's memories (all statuses) and the active ones the default table lists. */
  userTotal: number | null;
  userActive: number | null;
  pageSize: number;
  firstRows: {
    runs: number;
    /** Navigation start to the first frame with table rows (browser clock, warm HTTP cache). */
    toRows: Timing;
    /** Navigation start to the HTML's first byte. */
    htmlTtfb: Timing;
    /** The first list request (200 rows) and GET /memory-users, as the browser saw them. */
    listApi: Timing;
    usersApi: Timing;
    /** When (since navigation start) the app sent the first list request and when its answer was in: JS start-up before, rendering after. */
    listStart: Timing;
    listEnd: Timing;
    /** The same for GET /memory-users (the user picker and subtitle), sent alongside the list request. */
    usersStart: Timing;
    usersEnd: Timing;
    /** The untimed first load (empty HTTP cache, first request to the server for this page): navigation start to the first frame with rows. */
    coldToRows: number;
    /** Navigation start to DOMContentLoaded; the scripts the page loaded (KiB over the wire, possibly from the HTTP cache: then 0). */
    domContentLoaded: Timing;
    scripts: { count: number; transferKiB: number; decodedKiB: number };
    /** Rows in the DOM once the first page is shown. */
    domRows: number;
    longTasks: LongTasks;
  };
  scroll: {
    pages: number;
    rowsLoaded: number;
    /** The footer still says "N+ loaded": more pages were available. */
    more: boolean;
    /** From setting scrollTop to the bottom to the first frame showing the page's first new row. */
    perPage: Timing;
    /** Each page's list request (cursor) as the browser saw it. */
    perPageApi: Timing;
    /** After the last page: row elements and all elements in the document, the grid's scroll height and position (the screenshot's). */
    domRows: number;
    domElements: number;
    scrollHeightPx: number;
    scrollTopPx: number;
    /** Index of the first row element in the DOM at the end (the screenshot shows rows around here). */
    firstDomIndex: number;
    longTasks: LongTasks;
  };
  controls: ControlResult[];
  screenshot: string;
};

type Expect = { ids: string[]; count: number; more: boolean; query: string };

const PAGE_SIZE = 200; // client/hooks/memories.ts PAGE_SIZE
const ROW = '[data-testid="memory-row"]';

// Installed in every page before its scripts run: long tasks, and the first moment a
// table row is in the DOM (with the frame after it).
// tsx (esbuild keepNames) wraps named functions in __name(...), also inside the
// callbacks handed to page.evaluate, so the page needs a no-op __name.
const INIT_SCRIPT = `(() => {
  const w = window;
  if (!w.__name) w.__name = (f) => f;
  w.__ui = { longTasks: [], firstRow: 0, firstRowFrame: 0 };
  try {
    new PerformanceObserver((l) => { for (const e of l.getEntries()) w.__ui.longTasks.push([e.startTime, e.duration]); }).observe({ type: "longtask", buffered: true });
  } catch {}
  const check = () => {
    if (w.__ui.firstRow || !document.querySelector('${ROW}')) return;
    w.__ui.firstRow = performance.now();
    requestAnimationFrame(() => { w.__ui.firstRowFrame = performance.now(); });
    mo.disconnect();
  };
  const mo = new MutationObserver(check);
  mo.observe(document, { childList: true, subtree: true });
})();`;

type UiWindow = Window & { __ui: { longTasks: [number, number][]; firstRow: number; firstRowFrame: number; armedAt?: number; actionAt?: number } };

function timing(samples: number[]): Timing {
  return { ...stats(samples), samples: samples.map((x) => Math.round(x * 10) / 10) };
}

async function longTasksSince(page: Page, from: number, to?: number): Promise<LongTasks> {
  const xs = await page.evaluate(([a, b]) => (window as unknown as UiWindow).__ui.longTasks.filter(([s]) => s >= a && (b === null || s <= b)).map(([, d]) => d), [from, to ?? null] as const);
  return { count: xs.length, totalMs: Math.round(xs.reduce((s, x) => s + x, 0)), maxMs: Math.round(xs.reduce((m, x) => Math.max(m, x), 0)) };
}

function sumLongTasks(xs: LongTasks[]): LongTasks {
  return { count: xs.reduce((s, x) => s + x.count, 0), totalMs: xs.reduce((s, x) => s + x.totalMs, 0), maxMs: xs.reduce((m, x) => Math.max(m, x.maxMs), 0) };
}

/** Browser-side durations of list requests (GET /api/v1/users/{user}/memories?...), newest last. */
async function listRequests(page: Page, user: string): Promise<{ name: string; start: number; duration: number }[]> {
  const prefix = `/api/v1/users/${encodeURIComponent(user)}/memories?`;
  return page.evaluate(
    (p) =>
      performance
        .getEntriesByType("resource")
        .filter((e) => e.name.includes(p))
        .map((e) => ({ name: e.name, start: e.startTime, duration: (e as PerformanceResourceTiming).responseEnd - e.startTime })),
    prefix,
  );
}

export async function tableUiPhase(baseUrl: string, user: string, opts: TableUiOptions = {}): Promise<TableUiResult> {
  const o = {
    firstRowsRuns: opts.firstRowsRuns ?? 5,
    scrollTargetRows: opts.scrollTargetRows ?? 2000,
    scrollMaxPages: opts.scrollMaxPages ?? 25,
    controlRuns: opts.controlRuns ?? 3,
    screenshotPath: opts.screenshotPath ?? path.join(ROOT, "test-results/screenshots/memories-100k.png"),
    viewport: opts.viewport ?? { width: 1440, height: 900 },
    timeoutMs: opts.timeoutMs ?? 60_000,
  };
  const base = baseUrl.replace(/\/$/, "");
  const tableUrl = `${base}/memories?user=${encodeURIComponent(user)}`;

  // The rows the server answers for a list query: what the table must end up showing.
  const expected = async (qs: Record<string, string>): Promise<Expect> => {
    const sp = new URLSearchParams({ status: "active", sort: "updated_at", order: "desc", ...qs, limit: String(PAGE_SIZE) });
    const r = await fetch(`${base}/api/v1/users/${encodeURIComponent(user)}/memories?${sp}`);
    if (r.status !== 200) throw new Error(`GET memories?${sp} answered ${r.status}: ${await r.text()}`);
    const j = (await r.json()) as { data: { id: string }[]; next_cursor: string | null };
    sp.delete("limit");
    return { ids: j.data.map((m) => m.id), count: j.data.length, more: j.next_cursor !== null, query: sp.toString() };
  };

  const users = (await (await fetch(`${base}/api/v1/memory-users`)).json()) as { data: { user_id: string; total: number; active: number }[] };
  const me = users.data.find((u) => u.user_id === user);
  if (!me || me.active === 0) throw new Error(`user ${user} has no active memories on ${base}`);

  let browser: Browser | undefined;
  try {
    browser = await chromium.launch({
      executablePath: "/usr/bin/chromium",
      headless: true,
      // As tests/helpers/browser.ts: keep Chromium off the network it would reach at start.
      args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage"],
    });
    const context: BrowserContext = await browser.newContext({ viewport: o.viewport });
    context.setDefaultTimeout(o.timeoutMs);
    await context.addInitScript(INIT_SCRIPT);

    /** A fresh page on the table, first rows shown. The HTTP cache (scripts) is the context's, so warm after the first. */
    const openTable = async (url = tableUrl) => {
      const page = await context.newPage();
      const errors: string[] = [];
      page.on("pageerror", (e) => errors.push(e.message));
      await page.goto(url, { waitUntil: "commit" });
      await page.waitForFunction(() => (window as unknown as UiWindow).__ui?.firstRowFrame > 0, undefined, { polling: 50 });
      if (errors.length) throw new Error(`page errors on ${url}: ${errors.join("; ")}`);
      return page;
    };

    // 1. First rows: one untimed load (server and HTTP cache warm-up), then the timed ones.
    const coldPage = await openTable();
    const coldToRows = await coldPage.evaluate(() => (window as unknown as UiWindow).__ui.firstRowFrame);
    await coldPage.close();
    const first = { toRows: [] as number[], ttfb: [] as number[], list: [] as number[], users: [] as number[], listStart: [] as number[], listEnd: [] as number[], usersStart: [] as number[], usersEnd: [] as number[], dcl: [] as number[], scripts: { count: 0, transferKiB: 0, decodedKiB: 0 }, domRows: 0, long: [] as LongTasks[] };
    for (let i = 0; i < o.firstRowsRuns; i++) {
      const page = await openTable();
      const m = await page.evaluate((u) => {
        const w = window as unknown as UiWindow;
        const nav = performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming;
        const res = performance.getEntriesByType("resource") as PerformanceResourceTiming[];
        const list = res.find((e) => e.name.includes(`/api/v1/users/${encodeURIComponent(u)}/memories?`));
        const users = res.find((e) => e.name.includes("/api/v1/memory-users"));
        return {
          toRows: w.__ui.firstRowFrame,
          ttfb: nav.responseStart,
          list: list ? list.responseEnd - list.startTime : NaN,
          listStart: list ? list.startTime : NaN,
          usersStart: users ? users.startTime : NaN,
          usersEnd: users ? users.responseEnd : NaN,
          dcl: nav.domContentLoadedEventEnd,
          scripts: res
            .filter((e) => e.initiatorType === "script" || e.name.endsWith(".js"))
            .reduce((a, e) => ({ count: a.count + 1, transferKiB: a.transferKiB + e.transferSize / 1024, decodedKiB: a.decodedKiB + e.decodedBodySize / 1024 }), { count: 0, transferKiB: 0, decodedKiB: 0 }),
          listEnd: list ? list.responseEnd : NaN,
          users: users ? users.responseEnd - users.startTime : NaN,
          domRows: document.querySelectorAll('[data-testid="memory-row"]').length,
        };
      }, user);
      first.toRows.push(m.toRows);
      first.ttfb.push(m.ttfb);
      first.list.push(m.list);
      first.listStart.push(m.listStart);
      first.listEnd.push(m.listEnd);
      if (!Number.isNaN(m.usersStart)) first.usersStart.push(m.usersStart);
      if (!Number.isNaN(m.usersEnd)) first.usersEnd.push(m.usersEnd);
      first.dcl.push(m.dcl);
      first.scripts = { count: m.scripts.count, transferKiB: Math.round(m.scripts.transferKiB), decodedKiB: Math.round(m.scripts.decodedKiB) };
      if (!Number.isNaN(m.users)) first.users.push(m.users);
      first.domRows = m.domRows;
      first.long.push(await longTasksSince(page, 0, m.toRows));
      await page.close();
    }

    // 2. Scrolling: the grid to its bottom, one cursor page at a time.
    const page = await openTable();
    const scrollStart = await page.evaluate(() => performance.now());
    const perPage: number[] = [];
    const perPageApi: number[] = [];
    let rows = await page.locator('[data-testid="memory-grid"]').evaluate((g) => Number(g.getAttribute("aria-rowcount")));
    let more = true;
    while (rows < o.scrollTargetRows && perPage.length < o.scrollMaxPages) {
      more = await page.evaluate(() => /\+ loaded/.test(document.body.innerText));
      if (!more) break;
      const r = await page.evaluate(
        ({ prev, timeoutMs }) =>
          new Promise<{ ms: number; rows: number } | { error: string }>((resolve) => {
            const grid = document.querySelector('[data-testid="memory-grid"]') as HTMLElement;
            const t0 = performance.now();
            let done = false;
            const check = () => {
              if (done) return;
              const n = Number(grid.getAttribute("aria-rowcount"));
              if (n > prev && grid.querySelector(`[data-index="${prev}"] [data-testid="memory-row"]`)) {
                done = true;
                mo.disconnect();
                requestAnimationFrame(() => resolve({ ms: performance.now() - t0, rows: n }));
              } else if (performance.now() - t0 > timeoutMs) {
                done = true;
                mo.disconnect();
                resolve({ error: `no new rows after ${timeoutMs} ms (rows ${n}, was ${prev})` });
              }
            };
            const mo = new MutationObserver(check);
            mo.observe(grid, { childList: true, subtree: true, attributes: true, attributeFilter: ["aria-rowcount"] });
            const poll = setInterval(() => (done ? clearInterval(poll) : check()), 250);
            grid.scrollTop = grid.scrollHeight;
          }),
        { prev: rows, timeoutMs: o.timeoutMs },
      );
      if ("error" in r) throw new Error(`scrolling: ${r.error}`);
      perPage.push(r.ms);
      rows = r.rows;
      const reqs = (await listRequests(page, user)).filter((x) => x.name.includes("cursor="));
      if (reqs.length) perPageApi.push(reqs[reqs.length - 1].duration);
    }
    more = await page.evaluate(() => /\+ loaded/.test(document.body.innerText));
    const scrollEnd = await page.evaluate(() => performance.now());
    // Let the virtualizer settle (no fetch in flight, rows in view measured) before counting and the picture.
    await page.waitForTimeout(300);
    const dom = await page.evaluate(() => ({
      rows: document.querySelectorAll('[data-testid="memory-row"]').length,
      elements: document.getElementsByTagName("*").length,
      scrollHeight: (document.querySelector('[data-testid="memory-grid"]') as HTMLElement).scrollHeight,
      scrollTop: (document.querySelector('[data-testid="memory-grid"]') as HTMLElement).scrollTop,
      firstIndex: Math.min(...[...document.querySelectorAll("[data-testid='memory-grid'] [data-index]")].map((e) => Number(e.getAttribute("data-index")))),
    }));
    const scrollLong = await longTasksSince(page, scrollStart, scrollEnd);
    fs.mkdirSync(path.dirname(o.screenshotPath), { recursive: true });
    await page.screenshot({ path: o.screenshotPath });
    await page.close();

    // 3. Search, type filter and sort through the controls, each on a freshly loaded table.
    const scenarios: { label: string; action: string; qs: Record<string, string>; setup?: (p: Page) => Promise<Record<string, string>>; act: (p: Page) => Promise<void> }[] = [
      { label: "search (common word)", action: 'type "espresso" in the search box', qs: { q: "espresso" }, act: (p) => p.getByTestId("memory-search").fill("espresso") },
      { label: "search (rare phrase)", action: 'type "Reykjavík in 1998" in the search box', qs: { q: "Reykjavík in 1998" }, act: (p) => p.getByTestId("memory-search").fill("Reykjavík in 1998") },
      { label: "search (no match)", action: 'type "xylophone" in the search box', qs: { q: "xylophone" }, act: (p) => p.getByTestId("memory-search").fill("xylophone") },
      { label: "type filter", action: "click the Skill chip", qs: { memory_type: "skill" }, act: (p) => p.getByTestId("type-chip-skill").click() },
      {
        label: "search + type filter",
        action: 'with "espresso" searched, click the Pattern chip',
        qs: { q: "espresso", memory_type: "pattern" },
        setup: async (p) => {
          const e = await expected({ q: "espresso" });
          await p.getByTestId("memory-search").fill("espresso");
          await waitForRows(p, e, o.timeoutMs);
          return { q: "espresso" };
        },
        act: (p) => p.getByTestId("type-chip-pattern").click(),
      },
      { label: "sort by importance", action: "click the Importance header", qs: { sort: "importance_score", order: "desc" }, act: (p) => p.getByTestId("sort-importance_score").click() },
    ];
    const controls: ControlResult[] = [];
    for (const s of scenarios) {
      const want = await expected(s.qs);
      const toRows: number[] = [];
      const api: number[] = [];
      const long: LongTasks[] = [];
      for (let i = 0; i < o.controlRuns; i++) {
        const p = await openTable();
        if (s.setup) await s.setup(p);
        if (await p.evaluate(showing, want)) throw new Error(`${s.label}: the table already shows the expected rows before the action`);
        // The action's own event (trusted input / pointerdown) marks the start on the page's clock.
        await p.evaluate(() => {
          const w = window as unknown as UiWindow;
          w.__ui.actionAt = 0;
          const mark = () => {
            if (!w.__ui.actionAt) w.__ui.actionAt = performance.now();
          };
          document.addEventListener("input", mark, { capture: true, once: true });
          document.addEventListener("pointerdown", mark, { capture: true, once: true });
        });
        await s.act(p);
        const end = await waitForRows(p, want, o.timeoutMs);
        const at = await p.evaluate(() => (window as unknown as UiWindow).__ui.actionAt ?? 0);
        if (!at) throw new Error(`${s.label}: the action's event was not seen`);
        toRows.push(end - at);
        const wantQs = new URLSearchParams(want.query);
        const req = (await listRequests(p, user)).filter((x) => {
          const got = new URL(x.name).searchParams;
          return !got.has("cursor") && [...wantQs].every(([k, v]) => got.get(k) === v) && (wantQs.has("q") || !got.get("q")) && (wantQs.has("memory_type") || !got.get("memory_type"));
        });
        if (req.length) api.push(req[req.length - 1].duration);
        long.push(await longTasksSince(p, at, end));
        await p.close();
      }
      controls.push({ label: s.label, action: s.action, query: want.query, firstPageRows: want.count, more: want.more, toRows: timing(toRows), api: timing(api), longTasks: sumLongTasks(long) });
    }

    return {
      url: tableUrl,
      user,
      viewport: o.viewport,
      userTotal: me.total,
      userActive: me.active,
      pageSize: PAGE_SIZE,
      firstRows: {
        runs: o.firstRowsRuns,
        toRows: timing(first.toRows),
        htmlTtfb: timing(first.ttfb),
        listApi: timing(first.list),
        usersApi: timing(first.users),
        listStart: timing(first.listStart),
        listEnd: timing(first.listEnd),
        usersStart: timing(first.usersStart),
        usersEnd: timing(first.usersEnd),
        coldToRows,
        domContentLoaded: timing(first.dcl),
        scripts: first.scripts,
        domRows: first.domRows,
        longTasks: sumLongTasks(first.long),
      },
      scroll: {
        pages: perPage.length,
        rowsLoaded: rows,
        more,
        perPage: timing(perPage),
        perPageApi: timing(perPageApi),
        domRows: dom.rows,
        domElements: dom.elements,
        scrollHeightPx: dom.scrollHeight,
        scrollTopPx: Math.round(dom.scrollTop),
        firstDomIndex: dom.firstIndex,
        longTasks: scrollLong,
      },
      controls,
      screenshot: o.screenshotPath,
    };
  } finally {
    await browser?.close();
  }
}

/** In the page: does the table show exactly the expected first page (or the empty state for none)? */
function showing(want: Expect): boolean {
  if (want.count === 0) return !!document.querySelector('[data-testid="memories-empty"]');
  const grid = document.querySelector('[data-testid="memory-grid"]');
  if (!grid || Number(grid.getAttribute("aria-rowcount")) !== want.count) return false;
  const rendered = [...grid.querySelectorAll("[data-index]")]
    .map((el) => [Number(el.getAttribute("data-index")), el.querySelector('[data-testid="memory-row"]')?.getAttribute("data-id")] as const)
    .filter(([, id]) => !!id);
  if (!rendered.some(([i]) => i === 0)) return false;
  return rendered.every(([i, id]) => want.ids[i] === id);
}

/** Waits (in the page) until the table shows the expected rows; answers the first frame after, on the page's clock. */
async function waitForRows(page: Page, want: Expect, timeoutMs: number): Promise<number> {
  const r = await page.evaluate(
    ({ want, timeoutMs, showingSrc }) =>
      new Promise<number | string>((resolve) => {
        const show = new Function(`return (${showingSrc})`)() as (w: typeof want) => boolean;
        const t0 = performance.now();
        let done = false;
        const check = () => {
          if (done) return;
          if (show(want)) {
            done = true;
            mo.disconnect();
            requestAnimationFrame(() => resolve(performance.now()));
          } else if (performance.now() - t0 > timeoutMs) {
            done = true;
            mo.disconnect();
            resolve(`the table did not show the expected rows of ${want.query} within ${timeoutMs} ms`);
          }
        };
        const mo = new MutationObserver(check);
        mo.observe(document.body, { childList: true, subtree: true, attributes: true, attributeFilter: ["aria-rowcount", "data-id"] });
        const poll = setInterval(() => (done ? clearInterval(poll) : check()), 250);
        check();
      }),
    { want, timeoutMs, showingSrc: showing.toString() },
  );
  if (typeof r === "string") throw new Error(r);
  return r;
}
