import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromium, type Browser, type Locator, type Page } from "playwright-core";
import { afterAll, beforeAll, expect } from "vitest";
import { apiClient } from "./api-client";
import { startAppServer, type AppServer } from "./app-server";
import { reportTimings, timed, timePage, timingOn } from "./browser-timing";

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
    const [s, b] = await timed("suite start", () => Promise.allSettled([startAppServer(opts), sharedBrowser()]));
    if (s.status === "fulfilled") server = s.value;
    if (b.status === "fulfilled") browser = b.value;
    // One failed: the other is stopped by afterAll, which runs all the same.
    if (s.status === "rejected") throw s.reason;
    if (b.status === "rejected") throw b.reason;
    if (timingOn()) {
      const p = await b.value.newPage();
      timePage(p);
      await p.close();
    }
  });
  afterAll(async () => {
    await tab?.close();
    // The browser stays for the worker's next file; what this file opened goes.
    for (const c of browser?.contexts() ?? []) await c.close().catch(() => {});
    await server?.stop();
    reportTimings();
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

/**
 * A page's wait time-out on this machine now: `ms` up to a load of one per core, longer above it
 * (by the load per core, at most 4x). A cold page load on a 2-core machine at load 25 took past
 * 20 s in old and new versions of pages.test.ts alike (docs/benchmarks.md sections 37 and 54); a
 * hang guard, so a quiet machine keeps its short one. Read when a page is made or taken.
 */
export function loadScaledTimeout(ms: number): number {
  return Math.round(ms * Math.min(4, Math.max(1, os.loadavg()[0] / os.availableParallelism())));
}

/** A fresh page at the given size with a 20 s default timeout (or `timeoutMs`), scaled by the load. */
export async function newPage(browser: Browser, width = 1440, height = 900, colorScheme: "light" | "dark" = "light", timeoutMs = 20_000) {
  const page = await browser.newPage({ viewport: { width, height }, colorScheme });
  page.setDefaultTimeout(loadScaledTimeout(timeoutMs));
  return page;
}

/**
 * One tab that a file's tests take in turn. A new tab is a new renderer with cold caches (about
 * 1.5 CPU-seconds each); this one is resized, loses the routes the last test set and starts from
 * about:blank. The app keeps nothing in storage or cookies on localhost, and every test loads
 * its page anew. A test that adds listeners (page.on) opens a tab of its own. `open` makes the
 * tab (default: a page of its own context; browser-shared.ts's opens one in a signed-in context).
 */
export function reusedTab(browser: Browser, open: (width: number, height: number) => Promise<Page> = (w, h) => newPage(browser, w, h)) {
  let page: Page | null = null;
  return {
    async take(width = 1440, height = 900): Promise<Page> {
      if (!page || page.isClosed()) {
        page = await open(width, height);
      } else {
        page.setDefaultTimeout(loadScaledTimeout(20_000));
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

/** The three widths every page is checked at. */
export const CHECK_WIDTHS = [
  [1440, 900],
  [1024, 800],
  [390, 844],
] as const;

/**
 * At each of CHECK_WIDTHS: the page settled, a screenshot `<name>-<width>`, `check(width)` if
 * given, no sideways page scroll and no serious axe violation (colour-contrast on the whole
 * page at 1440 px, on what a width can change at the others).
 */
export async function checkAtWidths(page: Page, name: string, check?: (width: number) => Promise<void>): Promise<void> {
  for (const [w, h] of CHECK_WIDTHS) {
    await page.setViewportSize({ width: w, height: h });
    await settled(page, w);
    await page.screenshot({ path: screenshotPath(`${name}-${w}`), fullPage: true });
    await check?.(w);
    expect(await pageOverflow(page), `page scrolls sideways at ${w}px`).toBe(0);
    const violations = (await axeSeriousViolations(page, { contrast: w === 1440 ? "all" : "width-only" })).map((v) => `${v.impact} ${v.id} at ${v.targets.join(" | ")}`);
    expect(violations, `axe at ${w}px`).toEqual([]);
  }
}

let axeSource: string | undefined;

/**
 * In the page: every style rule under a media query on the viewport's width (the form Tailwind
 * writes `sm:`/`xl:`/`max-sm:` in, flat or nested), with that media condition, its selector and
 * the properties it sets. Read through the CSSOM, so it is what the browser applies, whatever
 * class names or stylesheet produced it.
 */
const WIDTH_RULES_SOURCE = `() => {
  const out = [];
  const walk = (rules, media, selector) => {
    for (const r of Array.from(rules)) {
      if (r instanceof CSSMediaRule) {
        walk(r.cssRules, /width/.test(r.conditionText) ? r.conditionText : media, selector);
      } else if (r instanceof CSSStyleRule) {
        const sel = selector && r.selectorText.includes("&") ? r.selectorText.replaceAll("&", ":is(" + selector + ")") : r.selectorText;
        if (media && r.style.length) out.push({ media, selector: sel, style: r.style });
        if (r.cssRules && r.cssRules.length) walk(r.cssRules, media, sel);
      } else if (typeof CSSNestedDeclarations !== "undefined" && r instanceof CSSNestedDeclarations) {
        if (media && selector && r.style.length) out.push({ media, selector, style: r.style });
      } else if (r.cssRules) {
        walk(r.cssRules, media, selector); // @layer, @supports, @container
      }
    }
  };
  for (const sheet of Array.from(document.styleSheets)) {
    try { walk(sheet.cssRules, null, null); } catch {}
  }
  return out;
}`;

/** Defines window.__widthRules in the page (by the protocol, not a script or eval: no CSP stops it). */
async function installWidthRules(page: Page): Promise<void> {
  await page.evaluate(`window.__widthRules ??= ${WIDTH_RULES_SOURCE}; window.__colourProperty ??= ${COLOUR_PROPERTY_SOURCE}; undefined`);
}
type WidthRule = { media: string; selector: string; style: CSSStyleDeclaration };

/** In the page: whether a width rule's properties can change a colour (kept beside WIDTH_RULES_SOURCE). */
const COLOUR_PROPERTY_SOURCE = `(p) => /colou?r|background|opacity|fill|stroke|shadow|filter|blend/.test(p) || (p.startsWith("--") && !p.startsWith("--tw-"))`;

/**
 * The width-dependent rules of the page's stylesheets that set a colour (text, background,
 * border, opacity, shadow, filter, fill, or a custom property that may hold one), as
 * "media selector { properties }". Tailwind's own variables under a breakpoint are layout
 * (space, divide, translate); its colour ones (--tw-ring-color) carry "color" in their name.
 */
export async function widthDependentColours(page: Page): Promise<string[]> {
  await installWidthRules(page);
  return page.evaluate(() => {
    const w = window as unknown as { __widthRules: () => WidthRule[]; __colourProperty: (p: string) => boolean };
    return w
      .__widthRules()
      .map((r) => ({ ...r, props: Array.from(r.style).filter(w.__colourProperty) }))
      .filter((r) => r.props.length > 0)
      .map((r) => `${r.media} ${r.selector} { ${r.props.join(", ")} }`);
  });
}

/**
 * Runs axe-core in the page; returns the serious and critical violations (id, impact, first
 * targets). `rules`: only these axe rules (default: all of them).
 *
 * `contrast: "width-only"` is for a page state already checked at a wider width (1440 px, all
 * rules). Colour-contrast is about three quarters of a full axe run on a large page
 * (docs/benchmarks.md section 37), and the colours it reads do not change with the width: in
 * this app one Tailwind colour class has a breakpoint (the project switcher's
 * `sm:not-sr-only sm:text-zinc-500` label, shown only from 640 px on). So at this width the rule
 * runs only on what the width can change, read from the page's stylesheets (not class names):
 * elements that a width rule hides at another width (`xl:hidden`, `sm:sr-only`) or shows only
 * here (`max-sm:block`), such as the Menu button below 1280 px, and elements that a width rule
 * gives a colour (widthDependentColours), should one be added. The other rules run on the whole
 * page, as at every width. What a width changes about what lies behind a text (a panel moved
 * over another) is checked at the wide width only.
 */
export function axeSeriousViolations(
  page: import("playwright-core").Page,
  opts: { rules?: string[]; contrast?: "all" | "width-only" } = {},
): Promise<{ id: string; impact: string; help: string; targets: string[] }[]> {
  return timed(opts.contrast === "width-only" ? "axe (width-only)" : "axe", () => axeRun(page, opts));
}

async function axeRun(
  page: import("playwright-core").Page,
  opts: { rules?: string[]; contrast?: "all" | "width-only" },
): Promise<{ id: string; impact: string; help: string; targets: string[] }[]> {
  axeSource ??= fs.readFileSync(require.resolve("axe-core/axe.min.js"), "utf8"); // read once per file, not per check
  const source = axeSource;
  // Next.js streams a dynamic page's metadata: its <title> can land a moment after the content.
  await page.waitForFunction(() => document.title.length > 0, undefined, { timeout: 10_000 }).catch(() => {});
  if (!(await page.evaluate(() => "axe" in window))) await page.addScriptTag({ content: source });
  const widthOnly = opts.contrast === "width-only" && (!opts.rules || opts.rules.includes("color-contrast"));
  if (widthOnly) await installWidthRules(page);
  const run = () =>
    page.evaluate(
      async ({ rules, widthOnly }) => {
        type Found = { id: string; impact: string; help: string; nodes: { target: string[] }[] };
        // @ts-expect-error injected above
        const axe = window.axe;
        const found: Found[] = [];
        const base = { resultTypes: ["violations"] };
        if (!widthOnly) {
          const options = { ...base, ...(rules ? { runOnly: { type: "rule", values: rules } } : {}) };
          found.push(...(await axe.run(document, options)).violations);
        } else {
          const others = rules?.filter((r) => r !== "color-contrast");
          if (!rules || others!.length > 0) {
            const options = { ...base, ...(others ? { runOnly: { type: "rule", values: others } } : {}), rules: { "color-contrast": { enabled: false } } };
            found.push(...(await axe.run(document, options)).violations);
          }
          // Shown by this width: a hiding rule (display none, visibility hidden, the sr-only
          // clip) whose width condition does not hold now, or a showing one that holds now;
          // coloured by a width: any width rule that sets a colour.
          const hides = (s: CSSStyleDeclaration) =>
            s.display === "none" || s.visibility === "hidden" || s.visibility === "collapse" || (s.position === "absolute" && (s.clip !== "" || s.clipPath !== "") && s.width === "1px");
          const shows = (s: CSSStyleDeclaration) => (s.display !== "" && s.display !== "none") || s.visibility === "visible" || s.clip === "auto" || s.position === "static";
          const w = window as unknown as { __widthRules: () => WidthRule[]; __colourProperty: (p: string) => boolean };
          const shown = new Set<Element>();
          for (const r of w.__widthRules()) {
            const now = matchMedia(r.media).matches;
            // Up to a width (max-sm:, "not all and (min-width)", "width <") or from one on
            // (sm:, xl:): a rule from a width on that holds now holds at any wider width too, so
            // what it shows was seen there; one that does not hold now may hide an element there.
            const upTo = /not all and|max-width|width\s*</.test(r.media);
            const coloured = Array.from(r.style).some(w.__colourProperty);
            const shownHere = upTo ? now && shows(r.style) && !hides(r.style) : !now && hides(r.style);
            if (!coloured && !shownHere) continue;
            try {
              for (const el of Array.from(document.querySelectorAll(r.selector))) shown.add(el);
            } catch {
              // a selector querySelectorAll cannot take (a pseudo-element): nothing of it to check
            }
          }
          const include = [...shown].filter((el) => (el as HTMLElement).offsetParent !== null || getComputedStyle(el).position === "fixed");
          if (include.length > 0) {
            found.push(...(await axe.run({ include }, { ...base, runOnly: { type: "rule", values: ["color-contrast"] } })).violations);
          }
        }
        return found.map((v) => ({
          id: v.id,
          impact: v.impact,
          help: v.help,
          targets: v.nodes.slice(0, 3).map((n) => n.target.join(" ")),
        }));
      },
      { rules: opts.rules ?? null, widthOnly },
    );
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
