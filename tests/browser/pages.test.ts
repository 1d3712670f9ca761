import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_IDS } from "@/lib/db/seed/demo-data";
import { apiClient } from "../helpers/api-client";
import { startAppServer, type AppServer } from "../helpers/app-server";
import { axeSeriousViolations, launchBrowser, newPage, pageOverflow, screenshotPath } from "../helpers/browser";

// Every page at 1440, 1024 and 390 px, and at 1440 px in dark mode: no horizontal page scroll, no
// serious or critical axe-core violation, and a screenshot each in
// test-results/screenshots/page-<name>-<width>[-dark].png.

const ANA = encodeURIComponent("ana@example.com");
/** Stands for a demo memory's id in PAGES; the real one is read from the API at start. */
const DEMO_MEMORY_ID = "demo-memory";

describe("every page, every width", () => {
  let server: AppServer;
  let browser: Browser;
  let memoryId = "";
  // One tab per size, navigated from page to page: every check is a full document load, and the
  // app keeps nothing in storage or cookies on localhost, so a reused tab starts each page as a
  // new one would. A new tab costs Chromium a new renderer with cold caches: about 1.5 CPU-seconds
  // a check, most of this file's time on a 2-core machine.
  const tabs = new Map<string, Page>();

  beforeAll(async () => {
    [server, browser] = await Promise.all([startAppServer({ seed: true }), launchBrowser()]);
    memoryId = (await apiClient(server.url).get(`/users/${ANA}/memories?limit=1`)).body.data[0].id;
  });
  afterAll(async () => {
    for (const tab of tabs.values()) await tab.close().catch(() => {});
    await browser?.close();
    await server?.stop();
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
    { name: "api-docs", path: "/docs/api", ready: '[data-testid="openapi-link"]' },
  ];

  const SIZES = [
    { width: 1440, scheme: "light" },
    { width: 1024, scheme: "light" },
    { width: 390, scheme: "light" },
    { width: 1440, scheme: "dark" },
  ] as const;
  for (const { width, scheme } of SIZES) {
    for (const p of PAGES) {
      it(`${p.name} at ${width} px${scheme === "dark" ? ", dark mode" : ""}: no sideways scroll, no serious axe violation`, async () => {
        const key = `${width}-${scheme}`;
        if (!tabs.has(key)) tabs.set(key, await newPage(browser, width, width === 390 ? 844 : 900, scheme));
        const page = tabs.get(key)!;
        await page.goto(`${server.url}${p.path.replace(DEMO_MEMORY_ID, memoryId)}`);
        await page.locator(p.ready).first().waitFor();
        await page.waitForTimeout(300);
        await page.screenshot({ path: screenshotPath(`page-${p.name}-${width}${scheme === "dark" ? "-dark" : ""}`) });
        expect(await pageOverflow(page), "px of sideways page scroll").toBe(0);
        const violations = (await axeSeriousViolations(page)).map((v) => `${v.impact} ${v.id} (${v.help}) at ${v.targets.join(" | ")}`);
        expect(violations).toEqual([]);
      }, 120_000);
    }
  }

  it("long unbroken words wrap: a 20,000-character memory and a 60,000-character turn", async () => {
    const api = apiClient(server.url);
    const long = "x".repeat(20_000);
    const m = await api.post(`/users/${ANA}/memories`, { content: long, memory_type: "fact", actor: "api" });
    expect(m.status).toBe(201);
    const c = await api.post("/conversations", { app_id: "overflow", end_user_id: "ana@example.com", name: "y".repeat(300) });
    expect(c.status).toBe(201);
    const turn = await api.post(`/conversations/${c.body.id}/messages`, { query: "q".repeat(60_000), answer: "a".repeat(60_000) });
    expect(turn.status).toBe(201);

    for (const width of [1440, 390]) {
      const page = await newPage(browser, width, 900);
      await page.goto(`${server.url}/memories/${m.body.id}?user=${ANA}`);
      await page.locator('[data-testid="history-event"]').first().waitFor();
      expect(await pageOverflow(page), `memory at ${width}`).toBe(0);
      await page.goto(`${server.url}/memories?user=${ANA}`);
      await page.locator('[data-testid="memory-row"]').first().waitFor();
      expect(await pageOverflow(page), `memory table at ${width}`).toBe(0);
      await page.goto(`${server.url}/conversations/${c.body.id}`);
      await page.locator('[data-testid="transcript-turn"]').first().waitFor();
      expect(await pageOverflow(page), `turn at ${width}`).toBe(0);
      const bubble = (await page.locator('[data-testid="transcript-turn"]').first().boundingBox())!;
      expect(bubble.width).toBeLessThanOrEqual(width);
      await page.screenshot({ path: screenshotPath(`long-words-turn-${width}`) });
      await page.close();
    }
  }, 240_000);
});
