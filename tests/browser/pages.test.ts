import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_IDS } from "@/lib/db/seed/demo-data";
import { apiClient } from "../helpers/api-client";
import { startAppServer, type AppServer } from "../helpers/app-server";
import { axeSeriousViolations, launchBrowser, newPage, pageOverflow, screenshotPath } from "../helpers/browser";

// Every page at 1440, 1024 and 390 px: no horizontal page scroll, no serious or critical axe-core
// violation, and a screenshot per width in test-results/screenshots/page-<name>-<width>.png.

const ANA = encodeURIComponent("ana@example.com");

describe("every page, every width", () => {
  let server: AppServer;
  let browser: Browser;

  beforeAll(async () => {
    [server, browser] = await Promise.all([startAppServer({ seed: true }), launchBrowser()]);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  // The inspector (components/inspect/**) belongs to another workstream: its axe findings are reported
  // to it rather than asserted here; its overflow is still checked.
  const PAGES: { name: string; path: string; ready: string; axe?: false }[] = [
    { name: "conversations", path: "/conversations", ready: '[data-testid="conversation-row"]' },
    { name: "conversation", path: `/conversations/${DEMO_IDS.branching}`, ready: '[data-testid="transcript-turn"]' },
    { name: "conversation-long", path: `/conversations/${DEMO_IDS.long}?max=600`, ready: '[data-testid="tree-node"][data-leaf="true"]' },
    { name: "memories", path: `/memories?user=${ANA}`, ready: '[data-testid="memory-row"]' },
    { name: "memory-review", path: `/memories/review?user=${ANA}`, ready: '[data-testid="extract-panel"]' },
    { name: "memory-playground", path: `/memories/playground?user=${ANA}`, ready: '[data-testid="playground-query"]' },
    { name: "memory-markdown", path: `/memories/markdown?user=${ANA}`, ready: '[data-testid="md-editor"]' },
    { name: "memory-dashboard", path: `/memories/dashboard?user=${ANA}`, ready: '[data-testid="chart-by-type"]' },
    { name: "inspect", path: "/inspect", ready: "h1", axe: false },
    { name: "api-docs", path: "/docs/api", ready: '[data-testid="openapi-link"]' },
  ];

  for (const width of [1440, 1024, 390]) {
    for (const p of PAGES) {
      it(`${p.name} at ${width} px: no sideways scroll, no serious axe violation`, async () => {
        const page = await newPage(browser, width, width === 390 ? 844 : 900);
        await page.goto(`${server.url}${p.path}`);
        await page.locator(p.ready).first().waitFor();
        await page.waitForTimeout(300);
        await page.screenshot({ path: screenshotPath(`page-${p.name}-${width}`) });
        expect(await pageOverflow(page), "px of sideways page scroll").toBe(0);
        if (p.axe === false) return void (await page.close());
        const violations = (await axeSeriousViolations(page)).map((v) => `${v.impact} ${v.id} (${v.help}) at ${v.targets.join(" | ")}`);
        expect(violations).toEqual([]);
        await page.close();
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
