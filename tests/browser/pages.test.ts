import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_IDS } from "@/lib/demo/demo-data";
import { apiClient } from "../helpers/api-client";
import { axeSeriousViolations, browserSuite, newPage, pageOverflow, screenshotPath, settled } from "../helpers/browser";

// Every page at 1440, 1024 and 390 px, and at 1440 px in dark mode: no horizontal page scroll, no
// serious or critical axe-core violation (in dark mode, of the colour rules; colour-contrast on the
// whole page at 1440 px only, the colours being the same at every width), and a screenshot
// each in test-results/screenshots/page-<name>-<width>[-dark].png.

const ANA = encodeURIComponent("ana@example.com");
/** Stands for a demo memory's id in PAGES; the real one is read from the API at start. */
const DEMO_MEMORY_ID = "demo-memory";

describe("every page, every width", () => {
  const suite = browserSuite({ seed: true });
  let memoryId = "";
  // One tab per size, navigated from page to page: every check is a full document load, and the
  // app keeps nothing in storage or cookies on localhost, so a reused tab starts each page as a
  // new one would. A new tab costs Chromium a new renderer with cold caches: about 1.5 CPU-seconds
  // a check, most of this file's time on a 2-core machine.
  const tabs = new Map<string, Page>();

  beforeAll(async () => {
    const api = apiClient(suite.url);
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
    for (const tab of tabs.values()) await tab.close().catch(() => {});
  });

  const PAGES: { name: string; path: string; ready: string }[] = [
    { name: "conversations", path: "/conversations", ready: '[data-testid="conversation-row"]' },
    { name: "conversation", path: `/conversations/${DEMO_IDS.branching}`, ready: '[data-testid="transcript-turn"]' },
    { name: "conversation-long", path: `/conversations/${DEMO_IDS.long}?max=600`, ready: '[data-testid="tree-node"][data-leaf="true"]' },
    { name: "memories", path: `/memories?user=${ANA}`, ready: '[data-testid="memory-row"]' },
    { name: "memory-review", path: `/memories/review?user=${ANA}`, ready: '[data-testid="extract-panel"]' },
    { name: "memory-playground", path: `/memories/playground?user=${ANA}`, ready: '[data-testid="playground-query"]' },
    { name: "memory-markdown", path: `/memories/markdown?user=${ANA}`, ready: '[data-testid="md-editor"]' },
    { name: "memory-dashboard", path: `/memories/dashboard?user=${ANA}`, ready: '[data-testid="chart-by-type"]' },
    { name: "memory-detail", path: `/memories/${DEMO_MEMORY_ID}?user=${ANA}`, ready: '[data-testid="history-event"]' },
    { name: "inspect", path: "/inspect", ready: "h1" },
    { name: "import", path: "/import", ready: '[data-testid="drop-zone"]' },
    { name: "settings", path: "/settings", ready: "h1" },
    { name: "settings-profiles", path: "/settings/profiles", ready: '[data-testid="profile-row"]' },
    { name: "api-docs", path: "/docs/api", ready: '[data-testid="openapi-link"]' },
  ];

  // Dark mode is CSS alone (prefers-color-scheme, and the graphs' colorMode="system" follows it
  // live): the 1440 px tab switches its colour scheme on the page it loaded, and the dark check
  // runs the colour rules of axe (contrast, links told apart in text), the only ones a colour
  // scheme can change. A dark load of its own cost a full page load and axe run per page.
  const SIZES = [
    { width: 1440, dark: true },
    { width: 1024, dark: false },
    { width: 390, dark: false },
  ] as const;
  const DARK_RULES = ["color-contrast", "link-in-text-block"];
  const tab = async (width: number) => {
    const key = String(width);
    if (!tabs.has(key)) tabs.set(key, await newPage(suite.browser, width, width === 390 ? 844 : 900, "light"));
    return tabs.get(key)!;
  };
  // settled (tests/helpers/browser.ts): the page at rest before each check, polled where a fixed
  // 300 ms wait stood before each of 42 checks.
  const describeViolations = (vs: Awaited<ReturnType<typeof axeSeriousViolations>>) =>
    vs.map((v) => `${v.impact} ${v.id} (${v.help}) at ${v.targets.join(" | ")}`);

  for (const { width, dark } of SIZES) {
    for (const p of PAGES) {
      it(`${p.name} at ${width} px${dark ? ", light and dark" : ""}: no sideways scroll, no serious axe violation`, async () => {
        const page = await tab(width);
        await page.emulateMedia({ colorScheme: "light" });
        await page.goto(`${suite.url}${p.path.replace(DEMO_MEMORY_ID, memoryId)}`);
        await page.locator(p.ready).first().waitFor();
        await settled(page);
        await page.screenshot({ path: screenshotPath(`page-${p.name}-${width}`) });
        expect(await pageOverflow(page), "px of sideways page scroll").toBe(0);
        // Colour-contrast on the whole page once per page state, at 1440 px; at 1024 and 390 on
        // what those widths alone show or colour (axeSeriousViolations' "width-only").
        expect(describeViolations(await axeSeriousViolations(page, { contrast: width === 1440 ? "all" : "width-only" }))).toEqual([]);
        if (!dark) return;

        await page.emulateMedia({ colorScheme: "dark" });
        // Colours change through CSS transitions (axe would read them halfway), and the graphs
        // re-render on the media change: wait for both to settle.
        await page.waitForFunction(() => matchMedia("(prefers-color-scheme: dark)").matches);
        await settled(page);
        await page.screenshot({ path: screenshotPath(`page-${p.name}-${width}-dark`) });
        expect(await pageOverflow(page), "px of sideways page scroll, dark").toBe(0);
        expect(describeViolations(await axeSeriousViolations(page, { rules: DARK_RULES })), "dark mode").toEqual([]);
      }, 120_000);
    }
  }

  it("long unbroken words wrap: a 20,000-character memory and a 60,000-character turn", async () => {
    const api = apiClient(suite.url);
    const long = "x".repeat(20_000);
    const m = await api.post(`/users/${ANA}/memories`, { content: long, memory_type: "fact", actor: "api" });
    expect(m.status).toBe(201);
    const c = await api.post("/conversations", { app_id: "overflow", end_user_id: "ana@example.com", name: "y".repeat(300) });
    expect(c.status).toBe(201);
    const turn = await api.post(`/conversations/${c.body.id}/messages`, { query: "q".repeat(60_000), answer: "a".repeat(60_000) });
    expect(turn.status).toBe(201);

    for (const width of [1440, 390]) {
      const page = await tab(width);
      await page.emulateMedia({ colorScheme: "light" });
      await page.goto(`${suite.url}/memories/${m.body.id}?user=${ANA}`);
      await page.locator('[data-testid="history-event"]').first().waitFor();
      expect(await pageOverflow(page), `memory at ${width}`).toBe(0);
      await page.goto(`${suite.url}/memories?user=${ANA}`);
      await page.locator('[data-testid="memory-row"]').first().waitFor();
      expect(await pageOverflow(page), `memory table at ${width}`).toBe(0);
      await page.goto(`${suite.url}/conversations/${c.body.id}`);
      await page.locator('[data-testid="transcript-turn"]').first().waitFor();
      expect(await pageOverflow(page), `turn at ${width}`).toBe(0);
      const bubble = (await page.locator('[data-testid="transcript-turn"]').first().boundingBox())!;
      expect(bubble.width).toBeLessThanOrEqual(width);
      await page.screenshot({ path: screenshotPath(`long-words-turn-${width}`) });
    }
  }, 240_000);
});
