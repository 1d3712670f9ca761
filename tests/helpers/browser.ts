import fs from "node:fs";
import path from "node:path";
import { chromium, type Browser, type Locator, type Page } from "playwright-core";
import { afterAll, beforeAll } from "vitest";
import { apiClient } from "./api-client";
import { startAppServer, type AppServer } from "./app-server";

// Debian's Chromium driven by playwright-core (no browser downloads here). The flags
// keep Chromium off the network it would otherwise try to reach at start.
export function chromiumPath(): string {
  for (const p of [process.env.CHROMIUM_PATH, "/usr/bin/chromium", "/usr/bin/chromium-browser"]) {
    if (p && fs.existsSync(p)) return p;
  }
  throw new Error("Chromium not found: apt-get install -y chromium (or set CHROMIUM_PATH)");
}

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--disable-dev-shm-usage",
    ],
  });
}

/**
 * This worker's Chromium, launched at its first browser file and kept for the next ones (npm test
 * runs files one after another in one process per worker): a launch is a browser process and its
 * GPU and network services, paid once per worker instead of once per file. Files never share a
 * page or a context: browserSuite closes every context a file opened after its last test, and
 * cookies and storage live in contexts. Playwright closes it when the worker exits.
 */
const SHARED_BROWSER = Symbol.for("memscope.tests.sharedBrowser");
export function sharedBrowser(): Promise<Browser> {
  const g = globalThis as Record<symbol, Promise<Browser> | undefined>;
  const current = g[SHARED_BROWSER];
  if (current) {
    return current.then(
      (b) => (b.isConnected() ? b : (delete g[SHARED_BROWSER], sharedBrowser())),
      () => (delete g[SHARED_BROWSER], sharedBrowser()),
    );
  }
  const launched = launchBrowser();
  g[SHARED_BROWSER] = launched;
  return launched;
}

export type BrowserSuite = {
  readonly server: AppServer;
  readonly url: string;
  readonly browser: Browser;
  /** The API of the suite's server (tests/helpers/api-client.ts). */
  readonly api: ReturnType<typeof apiClient>;
  /** One tab the suite's tests take in turn (reusedTab), closed with the browser. */
  readonly tab: ReturnType<typeof reusedTab>;
};

/**
 * The production server and the Chromium that a browser suite's tests share: started together
 * before its first test, the server stopped after its last and the file's contexts closed (the
 * Chromium is the worker's: sharedBrowser), by hooks this registers in the calling
 * describe. Read them inside hooks and tests. Vitest runs after-hooks last-registered first, so
 * a suite's own afterAll still finds its tabs and contexts open.
 */
export function browserSuite(opts: Parameters<typeof startAppServer>[0] = {}): BrowserSuite {
  let server: AppServer | undefined;
  let browser: Browser | undefined;
  let api: ReturnType<typeof apiClient> | undefined;
  let tab: ReturnType<typeof reusedTab> | undefined;
  beforeAll(async () => {
    const [s, b] = await Promise.allSettled([startAppServer(opts), sharedBrowser()]);
    if (s.status === "fulfilled") server = s.value;
    if (b.status === "fulfilled") browser = b.value;
    // One failed: the other is stopped by afterAll, which runs all the same.
    if (s.status === "rejected") throw s.reason;
    if (b.status === "rejected") throw b.reason;
  });
  afterAll(async () => {
    await tab?.close();
    // The browser stays for the worker's next file; what this file opened goes.
    for (const c of browser?.contexts() ?? []) await c.close().catch(() => {});
    await server?.stop();
  });
  const started = <T>(v: T | undefined): T => {
    if (!v) throw new Error("browserSuite: the server and browser start in beforeAll; read them in hooks and tests");
    return v;
  };
  return {
    get server() {
      return started(server);
    },
    get url() {
      return started(server).url;
    },
    get browser() {
      return started(browser);
    },
    get api() {
      return (api ??= apiClient(started(server).url));
    },
    get tab() {
      return (tab ??= reusedTab(started(browser)));
    },
  };
}

export const SCREENSHOT_DIR = path.resolve(__dirname, "../../test-results/screenshots");

export function screenshotPath(name: string): string {
  fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
  return path.join(SCREENSHOT_DIR, `${name}.png`);
}

/** A fresh page at the given size with a 20 s default timeout (or `timeoutMs`). */
export async function newPage(browser: Browser, width = 1440, height = 900, colorScheme: "light" | "dark" = "light", timeoutMs = 20_000) {
  const page = await browser.newPage({ viewport: { width, height }, colorScheme });
  page.setDefaultTimeout(timeoutMs);
  return page;
}

/**
 * One tab that a file's tests take in turn. A new tab is a new renderer with cold caches (about
 * 1.5 CPU-seconds each); this one is resized, loses the routes the last test set and starts from
 * about:blank. The app keeps nothing in storage or cookies on localhost, and every test loads
 * its page anew. A test that adds listeners (page.on) opens a tab of its own.
 */
export function reusedTab(browser: Browser) {
  let page: Page | null = null;
  return {
    async take(width = 1440, height = 900): Promise<Page> {
      if (!page || page.isClosed()) {
        page = await newPage(browser, width, height);
      } else {
        await page.unrouteAll({ behavior: "ignoreErrors" });
        await page.setViewportSize({ width, height });
        await page.goto("about:blank");
      }
      return page;
    },
    async close() {
      await page?.close().catch(() => {});
    },
  };
}

/**
 * The page at rest after a load, a resize or a colour-scheme change: at `width` if given (a
 * resize applies in the renderer's next frame), its fonts loaded, no CSS transition running (axe
 * would read colours halfway, a screenshot would catch a panel sliding), then two frames painted
 * (what a ResizeObserver or a media-query listener re-rendered is on screen). A condition where
 * fixed 300 ms waits stood: as long as a loaded machine needs, no longer than a quiet one does.
 */
export async function settled(page: Page, width?: number): Promise<void> {
  if (width !== undefined) await page.waitForFunction((w) => window.innerWidth === w, width);
  await page.waitForFunction(() => document.fonts.status === "loaded" && document.getAnimations().every((a) => a.playState !== "running" || !(a instanceof CSSTransition)));
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
}

/** How far the page scrolls sideways, in px (0 = no horizontal page scroll). */
export function pageOverflow(page: import("playwright-core").Page): Promise<number> {
  return page.evaluate(() => Math.max(0, document.documentElement.scrollWidth - document.documentElement.clientWidth));
}

let axeSource: string | undefined;

/**
 * Runs axe-core in the page; returns the serious and critical violations (id, impact, first
 * targets). `rules`: only these axe rules (default: all of them).
 */
export async function axeSeriousViolations(
  page: import("playwright-core").Page,
  opts: { rules?: string[] } = {},
): Promise<{ id: string; impact: string; help: string; targets: string[] }[]> {
  axeSource ??= fs.readFileSync(require.resolve("axe-core/axe.min.js"), "utf8"); // read once per file, not per check
  const source = axeSource;
  // Next.js streams a dynamic page's metadata: its <title> can land a moment after the content.
  await page.waitForFunction(() => document.title.length > 0, undefined, { timeout: 10_000 }).catch(() => {});
  if (!(await page.evaluate(() => "axe" in window))) await page.addScriptTag({ content: source });
  const run = () =>
    page.evaluate(async (rules) => {
      const options = { resultTypes: ["violations"], ...(rules ? { runOnly: { type: "rule", values: rules } } : {}) };
      // @ts-expect-error injected above
      const r = await window.axe.run(document, options);
      return (r.violations as { id: string; impact: string; help: string; nodes: { target: string[] }[] }[]).map((v) => ({
        id: v.id,
        impact: v.impact,
        help: v.help,
        targets: v.nodes.slice(0, 3).map((n) => n.target.join(" ")),
      }));
    }, opts.rules ?? null);
  let result = await run();
  // A page that rewrites its URL as state changes (the inspector) re-renders its metadata, and
  // the <title> can be out of the document for that moment (a CI run caught axe in it). Once
  // the title is back, check again: a page that really has none still fails the second run.
  if (result.some((v) => v.id === "document-title")) {
    await page.waitForFunction(() => document.title.length > 0, undefined, { timeout: 10_000 }).catch(() => {});
    result = await run();
  }
  return result.filter((v) => v.impact === "serious" || v.impact === "critical");
}

/**
 * Whether a closed <select>'s chosen entry shows whole: its text at the select's own font
 * against the room the box gives it (less padding and the arrow, about 24 px). A select cannot
 * wrap, so a longer text is cut.
 */
export function selectedTextFit(select: Locator): Promise<{ text: string; cut: string }> {
  return select.evaluate((el: HTMLSelectElement) => {
    const probe = document.createElement("span");
    const cs = getComputedStyle(el);
    probe.style.font = cs.font;
    probe.style.whiteSpace = "nowrap";
    probe.style.position = "absolute";
    probe.style.visibility = "hidden";
    probe.textContent = el.selectedOptions[0]?.textContent ?? "";
    document.body.append(probe);
    const need = probe.getBoundingClientRect().width;
    probe.remove();
    const room = el.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight) - 24;
    return { text: probe.textContent, cut: need > room ? `needs ${Math.round(need)} px, has ${Math.round(room)}` : "whole" };
  });
}
