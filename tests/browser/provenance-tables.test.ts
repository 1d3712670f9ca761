
import { randomUUID } from "node:crypto";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { axeSeriousViolations, pageOverflow, screenshotPath } from "../helpers/browser";
import { sharedBrowserSuite } from "../helpers/browser-shared";

// Issue 11: provenance (a memory's origin, a conversation's Memories tab), the playground's
// minimum score and low-similarity warning, and the memory table's row actions and 40 px rows.
// Real Chromium against the production server with the demo seed; each changed page is looked
// at in 1440, 1024 and 390 px screenshots and checked with axe.

const ANA = "ana@example.com";
const enc = encodeURIComponent;
const WIDTHS = [1440, 1024, 390] as const;

describe("provenance, playground and tables in a browser", () => {
  const suite = sharedBrowserSuite("provenance-tables", { demo: true });

  /** Screenshots at the three widths, no sideways scroll, no serious axe violation. */
  async function lookAt(page: Page, name: string, ready: () => Promise<unknown>) {
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 900 });
      await ready();
      await page.screenshot({ path: screenshotPath(`${name}-${width}`), fullPage: width !== 1440 });
      expect(await pageOverflow(page), `${name} at ${width}`).toBe(0);
      expect(await axeSeriousViolations(page, { contrast: width === 1440 ? "all" : "width-only" }), `${name} at ${width}`).toEqual([]);
    }
    await page.setViewportSize({ width: 1440, height: 900 });
  }

  it("a memory's Origin links its conversation and turn; the conversation's Memories tab lists it and the retrievals with scores", async () => {
    const u = `prov-${randomUUID().slice(0, 6)}@example.com`;
    const c = await suite.api.post("/conversations", { app_id: "provenance", end_user_id: u, name: "Trip planning with provenance" });
    const t1 = await suite.api.post(`/conversations/${c.body.id}/messages`, { query: "Can you plan a weekend in Porto?", answer: "Sure." });
    const t2 = await suite.api.post(`/conversations/${c.body.id}/messages`, { query: "By the way, I prefer window seats on trains.", answer: "Noted." });
    await suite.api.post(`/conversations/${c.body.id}/messages`, { query: "And what about food?", answer: "Try francesinha." });
    expect(t1.status).toBe(201);
    const ex = await suite.api.post(`/users/${enc(u)}/memories/extract`, { conversation_id: c.body.id });
    expect(ex.status, JSON.stringify(ex.body)).toBe(201);
    const item = ex.body.data[0];
    const ok = await suite.api.post(`/users/${enc(u)}/review/${item.id}/resolve`, { action: "approve" });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    const memoryId = ok.body.memory.id as string;
    await suite.api.post(`/users/${enc(u)}/memories`, { memory_type: "fact", content: "Lives in Lisbon near the river" });
    const s = await suite.api.post(`/users/${enc(u)}/memories/search`, { query: "window seats trains", k: 5, conversation_id: c.body.id });
    expect(s.status).toBe(200);

    const page = await suite.tab.take();
    await page.goto(`${suite.url}/memories/${memoryId}?user=${enc(u)}`);
    const origin = page.locator('[data-testid="origin-card"]');
    await origin.locator('[data-testid="origin-conversation"]').waitFor();
    expect(await origin.locator('[data-testid="origin-turn"]').textContent()).toContain("I prefer window seats on trains");
    // Written with the file's project key (browser-shared.ts): the history names the key.
    expect(await origin.locator('[data-testid="origin-created"]').textContent()).toContain("create by API key provenance-tables key");
    await lookAt(page, "memory-origin", () => origin.locator('[data-testid="origin-conversation"]').waitFor());

    // The link opens the conversation at that turn.
    await origin.getByRole("link", { name: "Trip planning with provenance" }).click();
    await page.waitForURL((url) => url.pathname === `/conversations/${c.body.id}` && url.searchParams.get("leaf") === t2.body.id);
    await page.locator(`[data-testid="tree-node"][data-id="${t2.body.id}"][data-leaf="true"]`).waitFor();

    // The Memories tab: the extracted memory (with its turn) and the retrieval's hits with scores.
    await page.getByRole("tab", { name: "Memories" }).click();
    await page.waitForFunction(() => location.search.includes("tab=memories"));
    const panel = page.locator('[data-testid="conversation-memories"]');
    await panel.locator(`[data-testid="extracted-memory"][data-id="${memoryId}"]`).waitFor();
    const retrieval = panel.locator(`[data-testid="retrieval"][data-id="${s.body.retrieval_id}"]`);
    await retrieval.waitFor();
    const hits = retrieval.locator('[data-testid="retrieval-hit"]');
    expect(await hits.count()).toBe(s.body.data.length);
    expect(await hits.first().textContent()).toContain(s.body.data[0].score.toFixed(3));
    await lookAt(page, "conversation-memories-tab", () => retrieval.waitFor());

    // "show its turn" selects the turn the memory came from as the leaf.
    await page.goto(`${suite.url}/conversations/${c.body.id}?tab=memories`);
    await panel.locator('[data-testid="extracted-turn"]').click();
    await page.waitForFunction((id) => new URLSearchParams(location.search).get("leaf") === id, t2.body.id);
  });

  it("playground: 'zzzz qqqq' warns of low similarity; the minimum score is in sight and leaves weak results out", async () => {
    const page = await suite.tab.take();
    await page.goto(`${suite.url}/memories/playground?user=${enc(ANA)}`);
    expect(await page.locator('[data-testid="min-score-value"]').textContent()).toBe("off");
    await page.locator('[data-testid="playground-query"]').fill("zzzz qqqq");
    await page.keyboard.press("Enter");
    const warning = page.locator('[data-testid="low-similarity-warning"]');
    await warning.waitFor();
    expect(await warning.textContent()).toMatch(/best cosine similarity is 0\.\d{3}, below 0\.30/);
    expect(await page.locator('[data-testid="low-similarity-badge"]').count()).toBe(await page.locator('[data-testid="playground-result"]').count());
    expect(await page.locator('[data-testid="playground-summary"]').textContent()).toContain("min score off");
    await lookAt(page, "playground-low-similarity", () => warning.waitFor());

    // A floor: the summary names it, each bar marks it, and nothing below it is listed.
    const before = await page.locator('[data-testid="playground-result"]').count();
    await page.locator('[data-testid="playground-min-score"]').fill("0.35");
    await page.waitForFunction(() => document.querySelector('[data-testid="playground-summary"]')?.textContent?.includes("min score 0.35"));
    await page.waitForFunction((n) => document.querySelectorAll('[data-testid="playground-result"]').length < n, before);
    const scores = await page.locator('[data-testid="playground-result"]').evaluateAll((els) => els.map((e) => Number(e.getAttribute("data-score"))));
    for (const sc of scores) expect(sc).toBeGreaterThanOrEqual(0.35);
    if (scores.length) expect(await page.locator('[data-testid="min-score-line"]').count()).toBe(scores.length);

    // A query that matches: no warning.
    await page.locator('[data-testid="playground-min-score"]').fill("0");
    await page.locator('[data-testid="playground-query"]').fill("shellfish");
    await page.keyboard.press("Enter");
    await page.waitForFunction(() => document.querySelector('[data-testid="playground-summary"]')?.textContent?.includes("min score off"));
    await warning.waitFor({ state: "detached" });
    expect(await page.locator('[data-testid="playground-result"]').first().textContent()).toContain("Does not eat shellfish");
  });

  it("memory table: 40 px rows with stable column widths, and per-row Edit / Archive (with undo) / Open", async () => {
    const page = await suite.tab.take();
    await page.goto(`${suite.url}/memories?user=${enc(ANA)}`);
    const rows = page.locator('[data-testid="memory-row"]');
    await rows.first().waitFor();
    const heights = await rows.evaluateAll((els) => els.slice(0, 5).map((e) => e.getBoundingClientRect().height));
    for (const h of heights) expect(h).toBeLessThanOrEqual(41);
    const widths = () => page.locator('[data-testid="memory-grid"] [role="columnheader"]').evaluateAll((els) => els.map((e) => Math.round(e.getBoundingClientRect().width)));
    const w0 = await widths();

    // Archive from the row: the toast offers Undo, which brings it back.
    const id = (await rows.first().getAttribute("data-id"))!;
    const row = page.locator(`[data-testid="memory-row"][data-id="${id}"]`);
    await row.locator('[data-testid="row-archive"]').click();
    await page.waitForFunction((i) => !document.querySelector(`[data-testid="memory-row"][data-id="${i}"]`), id);
    expect((await suite.api.get(`/memories/${id}`)).body.status).toBe("archived");
    expect(await widths()).toEqual(w0);
    await page.locator('[data-testid="row-undo"]').click();
    await row.waitFor();
    expect((await suite.api.get(`/memories/${id}`)).body.status).toBe("active");

    // Edit opens the inline editor in that row; Open goes to the detail page.
    await row.locator('[data-testid="row-edit"]').click();
    await row.locator("textarea").first().waitFor();
    await page.keyboard.press("Escape");
    await lookAt(page, "memories-table", () => rows.first().waitFor());
    await row.locator('[data-testid="memory-open"]').click();
    await page.waitForURL(new RegExp(`/memories/${id}`));

    // Conversation rows are links as a whole: a click on the Turns cell opens the conversation.
    await page.goto(`${suite.url}/conversations`);
    const first = page.locator('[data-testid="conversation-row"]').first();
    await first.waitFor();
    const cid = await first.getAttribute("data-id");
    await first.locator("td").nth(3).click();
    await page.waitForURL(new RegExp(`/conversations/${cid}`));
  });
});
