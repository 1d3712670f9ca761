import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_IDS } from "@/lib/demo/demo-data";
import { axeSeriousViolations, loadScaledTimeout, pageOverflow, screenshotPath, settled } from "../helpers/browser";
import { sharedBrowserSuite } from "../helpers/browser-shared";

// Every page at 1440, 1024 and 390 px (one load, resized), and at 1440 px in dark mode: no horizontal page scroll, no
// serious or critical axe-core violation (in dark mode, of the colour rules; colour-contrast on the
// whole page at 1440 px only, the colours being the same at every width), and a screenshot
// each in test-results/screenshots/page-<name>-<width>[-dark].png.

const ANA = encodeURIComponent("ana@example.com");
/** Stands for a demo memory's id in PAGES; the real one is read from the API at start. */
const DEMO_MEMORY_ID = "demo-memory";

describe("every page, every width", () => {
  // The worker's shared server, the owner signed in, in a project of this file's own filled with the demo.
  const suite = sharedBrowserSuite("pages", { demo: true });
  let memoryId = "";
  // One tab, navigated from page to page: every check is a full document load, and the app keeps
  // nothing in storage but the session cookies on localhost, so a reused tab starts each page as a new one
  // would. A new tab costs Chromium a new renderer with cold caches: about 1.5 CPU-seconds a
  // check, most of this file's time on a 2-core machine.
  let tabPage: Page | undefined;

  beforeAll(async () => {
    const api = suite.api;
    memoryId = (await api.get(`/users/${ANA}/memories?limit=1`)).body.data[0].id;
    // An agent profile with two versions: the profiles page shows its row and history.
    for (const k of [3, 8]) {
      const v = await api.post("/profiles/support-bot/versions", {
        settings: { model: "gpt-4o-mini", strategy: { type: "message_window", max_attached_message_count: 6 }, memory: { enabled: true, k } },
        note: `k = ${k}`,
      });
      expect(v.status, JSON.stringify(v.body)).toBe(201);
    }
  });
  afterAll(async () => {
    await tabPage?.close().catch(() => {});
  });

  // checkedWhole: the file that already runs axe on this page in this state at 1440 px, light
  // (all rules) and dark (the colour rules), with a stricter wait; here that width gets the
  // screenshots and the sideways-scroll check, and 1024 and 390 px the "width-only" run.
  const PAGES: { name: string; path: string; ready: string; checkedWhole?: string }[] = [
    { name: "conversations", path: "/conversations", ready: '[data-testid="conversation-row"]' },
    { name: "conversation", path: `/conversations/${DEMO_IDS.branching}`, ready: '[data-testid="transcript-turn"]', checkedWhole: "axe-seeded-conversations.test.ts" },
    { name: "conversation-long", path: `/conversations/${DEMO_IDS.long}?max=600`, ready: '[data-testid="tree-node"][data-leaf="true"]' },
    { name: "memories", path: `/memories?user=${ANA}`, ready: '[data-testid="memory-row"]' },
    { name: "memory-review", path: `/memories/review?user=${ANA}`, ready: '[data-testid="extract-panel"]' },
    { name: "memory-playground", path: `/memories/playground?user=${ANA}`, ready: '[data-testid="playground-query"]' },
    { name: "memory-markdown", path: `/memories/markdown?user=${ANA}`, ready: '[data-testid="md-editor"]' },
    { name: "memory-dashboard", path: `/memories/dashboard?user=${ANA}`, ready: '[data-testid="chart-by-type"]' },
    { name: "memory-detail", path: `/memories/${DEMO_MEMORY_ID}?user=${ANA}`, ready: '[data-testid="history-event"]' },
    // The Run button's Ctrl ↵ hint: its contrast is checked here (it had a test of its own in
    // provenance-tables.test.ts, a second load and axe run of this same state).
    { name: "inspect", path: "/inspect", ready: '[data-testid="inspect-run"] kbd' },
    { name: "import", path: "/import", ready: '[data-testid="drop-zone"]' },
    { name: "settings", path: "/settings", ready: "h1" },
    { name: "settings-profiles", path: "/settings/profiles", ready: '[data-testid="profile-row"]' },
    { name: "api-docs", path: "/docs/api", ready: '[data-testid="openapi-link"]' },
  ];

  // Dark mode is CSS alone (prefers-color-scheme, and the graphs' colorMode="system" follows it
  // live): at 1440 px the tab switches its colour scheme on the page it loaded, and the dark check
  // runs the colour rules of axe (contrast, links told apart in text), the only ones a colour
  // scheme can change. A dark load of its own cost a full page load and axe run per page.
  //
  // One load per page: the widths are the same tab resized (1440, then 1024, then 390 px). The
  // app's layout follows the width by CSS alone (no component reads the window's width; the
  // graphs refit on resize), so a resized page is laid out as one loaded at that width; a load
  // per width cost a page load and its data again, twice per page.
  const SIZES = [
    { width: 1440, height: 900, dark: true },
    { width: 1024, height: 900, dark: false },
    { width: 390, height: 844, dark: false },
  ] as const;
  const DARK_RULES = ["color-contrast", "link-in-text-block"];
  const tab = async () => (tabPage ??= await suite.signedIn(1440, 900));
  // settled (tests/helpers/browser.ts): the page at rest before each check, polled where a fixed
  // 300 ms wait stood before each of 42 checks.
  const describeViolations = (vs: Awaited<ReturnType<typeof axeSeriousViolations>>) =>
    vs.map((v) => `${v.impact} ${v.id} (${v.help}) at ${v.targets.join(" | ")}`);

  for (const p of PAGES) {
    const axeElsewhere = p.checkedWhole ? ` (axe at 1440 px: ${p.checkedWhole})` : "";
    it(`${p.name} at 1440 px light and dark, 1024 and 390 px: no sideways scroll, no serious axe violation${axeElsewhere}`, async () => {
      const page = await tab();
      page.setDefaultTimeout(loadScaledTimeout(20_000));
      await page.setViewportSize({ width: 1440, height: 900 });
      await page.emulateMedia({ colorScheme: "light" });
      await page.goto(`${suite.url}${p.path.replace(DEMO_MEMORY_ID, memoryId)}`);
      await page.locator(p.ready).first().waitFor();
      const found: Record<string, string[]> = {};
      for (const { width, height, dark } of SIZES) {
        await page.setViewportSize({ width, height });
        await settled(page, width);
        await page.screenshot({ path: screenshotPath(`page-${p.name}-${width}`) });
        expect(await pageOverflow(page), `px of sideways page scroll at ${width} px`).toBe(0);
        // Colour-contrast on the whole page once per page state, at 1440 px; at 1024 and 390 on
        // what those widths alone show or colour (axeSeriousViolations' "width-only").
        if (width !== 1440 || !axeElsewhere) {
          found[`${width}`] = describeViolations(await axeSeriousViolations(page, { contrast: width === 1440 ? "all" : "width-only" }));
        }
        if (!dark) continue;

        await page.emulateMedia({ colorScheme: "dark" });
        // Colours change through CSS transitions (axe would read them halfway), and the graphs
        // re-render on the media change: wait for both to settle.
        await page.waitForFunction(() => matchMedia("(prefers-color-scheme: dark)").matches);
        await settled(page);
        await page.screenshot({ path: screenshotPath(`page-${p.name}-${width}-dark`) });
        expect(await pageOverflow(page), `px of sideways page scroll at ${width} px, dark`).toBe(0);
        if (!axeElsewhere) found[`${width} dark`] = describeViolations(await axeSeriousViolations(page, { rules: DARK_RULES }));
        await page.emulateMedia({ colorScheme: "light" });
        await page.waitForFunction(() => !matchMedia("(prefers-color-scheme: dark)").matches);
      }
      expect(found).toEqual(Object.fromEntries(Object.keys(found).map((k) => [k, []])));
    }, 240_000);
  }

  it("long unbroken words wrap: a 20,000-character memory and a 60,000-character turn", async () => {
    const api = suite.api;
    const long = "x".repeat(20_000);
    const m = await api.post(`/users/${ANA}/memories`, { content: long, memory_type: "fact", actor: "api" });
    expect(m.status).toBe(201);
    const c = await api.post("/conversations", { app_id: "overflow", end_user_id: "ana@example.com", name: "y".repeat(300) });
    expect(c.status).toBe(201);
    const turn = await api.post(`/conversations/${c.body.id}/messages`, { query: "q".repeat(60_000), answer: "a".repeat(60_000) });
    expect(turn.status).toBe(201);

    // Each page loaded once, checked at 1440 px and resized to 390.
    const page = await tab();
    await page.emulateMedia({ colorScheme: "light" });
    const atWidths = async (what: string, check?: (width: number) => Promise<void>) => {
      for (const width of [1440, 390]) {
        await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
        await settled(page, width);
        expect(await pageOverflow(page), `${what} at ${width}`).toBe(0);
        await check?.(width);
      }
    };
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.goto(`${suite.url}/memories/${m.body.id}?user=${ANA}`);
    await page.locator('[data-testid="history-event"]').first().waitFor();
    await atWidths("memory");
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.goto(`${suite.url}/memories?user=${ANA}`);
    await page.locator('[data-testid="memory-row"]').first().waitFor();
    await atWidths("memory table");
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.goto(`${suite.url}/conversations/${c.body.id}`);
    await page.locator('[data-testid="transcript-turn"]').first().waitFor();
    await atWidths("turn", async (width) => {
      const bubble = (await page.locator('[data-testid="transcript-turn"]').first().boundingBox())!;
      expect(bubble.width).toBeLessThanOrEqual(width);
      await page.screenshot({ path: screenshotPath(`long-words-turn-${width}`) });
    });
  }, 240_000);
});
