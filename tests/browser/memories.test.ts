import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { screenshotPath, settled } from "../helpers/browser";
import { sharedBrowserSuite } from "../helpers/browser-shared";

// The memories area in real Chromium against the production server with the demo seed
// (ana@example.com and max.k@example.com have memories). Screenshots land in
// test-results/screenshots/memories-*.png, in light and dark.

const ANA = "ana@example.com";
const MAX = "max.k@example.com";
const enc = encodeURIComponent;

describe("memories pages in a browser", () => {
  const suite = sharedBrowserSuite("memories", { demo: true });
  let page: Page, dark: Page;

  beforeAll(async () => void ([page, dark] = await Promise.all([suite.signedIn(1440, 900), suite.signedIn(1440, 900).then(async (p) => (await p.emulateMedia({ colorScheme: "dark" }), p))])));

  const rowIds = (p: Page = page) => p.locator('[data-testid="memory-row"]').evaluateAll((els) => els.map((e) => e.getAttribute("data-id")!));
  const row = (id: string) => page.locator(`[data-testid="memory-row"][data-id="${id}"]`);
  const openTable = async (user: string, p: Page = page) => {
    await p.goto(`${suite.url}/memories?user=${enc(user)}`);
    await p.locator('[data-testid="memory-row"]').first().waitFor();
  };

  /** Sets a range input the way a drag does (React listens to "input"). */
  const setRange = (testId: string, value: number) =>
    page.evaluate(
      ([id, v]) => {
        const el = document.querySelector<HTMLInputElement>(`[data-testid="${id}"]`)!;
        Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, "value")!.set!.call(el, String(v));
        el.dispatchEvent(new Event("input", { bubbles: true }));
      },
      [testId, value] as const,
    );

  it("lists a user's memories with filters, sorting and a user picker", async () => {
    await openTable(ANA);
    expect(await page.locator('[data-testid="memory-row"]').count()).toBeGreaterThanOrEqual(5);
    expect(await page.locator('[data-testid="memory-user-picker"]').inputValue()).toBe(ANA);
    await page.screenshot({ path: screenshotPath("memories-table") });

    // Server-side type filter: every row shows the chosen type.
    await page.locator('[data-testid="type-chip-fact"]').click();
    await page.waitForFunction(() => {
      const types = [...document.querySelectorAll('[data-testid="memory-row"] [data-testid="type-badge"]')].map((e) => e.getAttribute("data-type"));
      return types.length > 0 && types.every((t) => t === "fact");
    });
    expect(page.url()).toContain("type=fact");
    await page.locator('[data-testid="type-chip-all"]').click();

    // Sort by importance (server-side) by clicking the header.
    await page.locator('[data-testid="sort-importance_score"]').click();
    await page.waitForFunction(() => location.search.includes("sort=importance_score"));
    // The rows come in the API's importance order (most important first), not just any order.
    const sorted = (await suite.api.get(`/users/${enc(ANA)}/memories?sort=importance_score&order=desc&limit=200`)).body.data as { id: string; importance_score: number }[];
    for (let i = 1; i < sorted.length; i++) expect(sorted[i].importance_score).toBeLessThanOrEqual(sorted[i - 1].importance_score);
    expect(new Set(sorted.map((m) => m.importance_score)).size).toBeGreaterThan(2);
    await expect.poll(() => rowIds()).toEqual(sorted.map((m) => m.id));

    // "/" focuses search; typing filters server-side.
    await page.locator('[data-testid="memory-grid"]').focus();
    await page.keyboard.press("/");
    await page.keyboard.type("shellfish");
    await page.waitForFunction(() => {
      const rows = [...document.querySelectorAll('[data-testid="memory-content"]')];
      return rows.length > 0 && rows.every((r) => /shellfish/i.test(r.textContent ?? ""));
    });

    await openTable(ANA, dark);
    await dark.screenshot({ path: screenshotPath("memories-table-dark") });
  });

  it("(d) bulk-archives 3 memories, they leave the active list, Undo brings them back", async () => {
    await openTable(MAX);
    const before = await rowIds();
    expect(before.length).toBeGreaterThanOrEqual(4);
    const picked = before.slice(0, 3);

    // Checkbox, then shift-click for the range.
    await row(picked[0]).locator('[data-testid="row-select"]').click();
    await row(picked[2]).locator('[data-testid="row-select"]').click({ modifiers: ["Shift"] });
    await page.waitForFunction(() => document.querySelector('[data-testid="bulk-count"]')?.textContent?.startsWith("3 selected"));
    await page.screenshot({ path: screenshotPath("memories-bulk-selected") });

    await page.locator('[data-testid="bulk-archive"]').click();
    await page.waitForFunction((ids) => ids.every((id) => !document.querySelector(`[data-testid="memory-row"][data-id="${id}"]`)), picked);
    expect(await page.locator('[data-testid="bulk-toast-message"]').textContent()).toContain("Archived 3");
    expect((await rowIds()).length).toBe(before.length - 3);
    await page.screenshot({ path: screenshotPath("memories-bulk-archived-toast") });

    await page.locator('[data-testid="bulk-undo"]').click();
    await page.waitForFunction((ids) => ids.every((id) => !!document.querySelector(`[data-testid="memory-row"][data-id="${id}"]`)), picked);
    for (const id of picked) expect((await suite.api.get(`/memories/${id}`)).body.status).toBe("active");
  });

  it("(a) edits inline with a version, then a stale edit shows the conflict", async () => {
    await openTable(ANA);
    const [id] = await rowIds();
    const v0 = Number(await row(id).getAttribute("data-version"));

    await row(id).locator('[data-testid="memory-content"]').dblclick();
    const input = page.locator('[data-testid="inline-editor-input"]');
    await input.fill("Prefers a window seat on long flights (edited inline)");
    await page.screenshot({ path: screenshotPath("memories-inline-edit") });
    await input.press("Enter");
    await page.waitForFunction(([i, v]) => document.querySelector(`[data-testid="memory-row"][data-id="${i}"]`)?.getAttribute("data-version") === String(v), [id, v0 + 1] as const);
    expect(await row(id).locator('[data-testid="memory-content"]').textContent()).toBe("Prefers a window seat on long flights (edited inline)");
    expect(await row(id).locator('[data-testid="memory-version"]').textContent()).toBe(`v${v0 + 1}`);

    // Someone else saves meanwhile; this page still holds v0+1.
    const other = await suite.api.patch(`/memories/${id}`, { version: v0 + 1, content: "Changed by another curator", actor: "api" });
    expect(other.status).toBe(200);

    // Keyboard this time: focus the row, Enter edits.
    await row(id).click({ position: { x: 600, y: 8 } });
    await page.keyboard.press("Enter");
    await input.fill("My stale edit");
    await input.press("Enter");
    await page.locator('[data-testid="edit-conflict"]').waitFor();
    expect(await page.locator('[data-testid="edit-conflict"]').textContent()).toContain("Changed elsewhere");
    expect(await page.locator('[data-testid="edit-conflict-current"]').textContent()).toBe("Changed by another curator");
    await page.screenshot({ path: screenshotPath("memories-edit-conflict") });

    await page.locator('[data-testid="conflict-overwrite"]').click();
    await page.waitForFunction(([i, v]) => document.querySelector(`[data-testid="memory-row"][data-id="${i}"]`)?.getAttribute("data-version") === String(v), [id, v0 + 3] as const);
    const now = (await suite.api.get(`/memories/${id}`)).body;
    expect(now.content).toBe("My stale edit");
    expect(now.version).toBe(v0 + 3);

    // The detail page: history with word diffs, JSON validation.
    await page.goto(`${suite.url}/memories/${id}?user=${enc(ANA)}`);
    await page.locator('[data-testid="history-event"]').first().waitFor();
    expect(await page.locator('[data-testid="history-event"]').count()).toBeGreaterThanOrEqual(4);
    expect(await page.locator('[data-testid="diff-added"]').count()).toBeGreaterThan(0);
    const json = page.locator('[data-testid="json-editor-input"]');
    await json.fill('{ "seat": "window", }');
    await page.locator('[data-testid="json-error"]').waitFor();
    expect(await page.locator('[data-testid="json-save"]').isDisabled()).toBe(true);
    await json.fill('{ "seat": "window" }');
    await page.locator('[data-testid="json-valid"]').waitFor();
    expect(await page.locator('[data-testid="json-save"]').isDisabled()).toBe(false);
    await page.screenshot({ path: screenshotPath("memories-detail"), fullPage: true });
    await dark.goto(page.url());
    await dark.locator('[data-testid="history-event"]').first().waitFor();
    await settled(dark);
    await dark.screenshot({ path: screenshotPath("memories-detail-dark"), fullPage: true });
  });

  it("(b) merges two selected memories, then Undo merge restores the sources", async () => {
    await openTable(ANA);
    const [a, b] = (await rowIds()).slice(1, 3);
    await row(a).locator('[data-testid="row-select"]').click();
    await row(b).locator('[data-testid="row-select"]').click();
    await page.locator('[data-testid="bulk-merge"]').click();
    await page.locator('[data-testid="merge-dialog"]').waitFor();
    expect(await page.locator('[data-testid="merge-source"]').count()).toBe(2);
    await page.waitForFunction(() => ((document.querySelector('[data-testid="merge-content"]') as HTMLTextAreaElement | null)?.value ?? "").length > 0);
    await page.screenshot({ path: screenshotPath("memories-merge-dialog") });

    await page.locator('[data-testid="merge-submit"]').click();
    await page.waitForURL(/\/memories\/[0-9a-f-]{36}\?.*merged=2/);
    const mergedId = new URL(page.url()).pathname.split("/").pop()!;
    await page.locator('[data-testid="merge-banner"]').waitFor();
    for (const id of [a, b]) expect((await suite.api.get(`/memories/${id}`)).body.status).toBe("archived");
    await page.locator('[data-testid="relation-node"]').first().waitFor();
    await settled(page);
    await page.screenshot({ path: screenshotPath("memories-merged") });

    await page.locator('[data-testid="unmerge"]').click();
    await page.waitForURL((u) => u.pathname === "/memories");
    for (const id of [a, b]) expect((await suite.api.get(`/memories/${id}`)).body.status).toBe("active");
    expect((await suite.api.get(`/memories/${mergedId}`)).body.status).toBe("archived");
    await page.locator(`[data-testid="memory-row"][data-id="${a}"]`).waitFor();

    // The status filter: the merged memory is archived now; "all" (reached with the arrow keys) lists both.
    const status = page.getByRole("group", { name: "Status" });
    expect(await status.locator('[aria-pressed="true"]').textContent()).toBe("active");
    await status.locator('[data-testid="memory-status-archived"]').click();
    await row(mergedId).waitFor();
    expect(await row(a).count()).toBe(0);
    await page.waitForFunction(() => location.search.includes("status=archived"));
    expect(await page.locator('[data-testid="memory-status-archived"]').getAttribute("aria-pressed")).toBe("true");
    await page.keyboard.press("ArrowRight");
    await page.keyboard.press("Space");
    await row(a).waitFor();
    expect(await row(mergedId).count()).toBe(1);
    expect(await page.locator('[data-testid="memory-status-all"]').getAttribute("aria-pressed")).toBe("true");
    expect(await page.locator('[data-testid="memory-status-archived"]').getAttribute("aria-pressed")).toBe("false");
  });

  it("(c) playground: ranked results with stacked bars; a weight change re-ranks", async () => {
    await page.goto(`${suite.url}/memories/playground?user=${enc(ANA)}`);
    expect(await page.locator('[data-testid="playground-dry-run"]').isChecked()).toBe(true);
    await page.locator('[data-testid="playground-query"]').fill("Lisbon flight shellfish budget");
    await page.keyboard.press("Enter");
    await page.locator('[data-testid="playground-result"]').first().waitFor();
    await page.locator('[data-testid="embedding-banner"]').waitFor();
    expect(await page.locator('[data-testid="embedding-banner"]').textContent()).toContain("not meaning");
    const results = page.locator('[data-testid="playground-result"]');
    expect(await results.count()).toBeGreaterThan(2);
    expect(await page.locator('[data-testid="stacked-bar"]').count()).toBe(await results.count());
    expect(await page.locator('[data-testid="bar-similarity"]').first().evaluate((e) => parseFloat((e as HTMLElement).style.width))).toBeGreaterThan(0);
    const snapshot = () => results.evaluateAll((els) => els.map((e) => `${e.getAttribute("data-id")}:${e.getAttribute("data-score")}`).join("|"));
    const before = await snapshot();
    await page.screenshot({ path: screenshotPath("memories-playground") });

    await setRange("weight-similarity", 0);
    await setRange("weight-importance", 1);
    expect(await page.locator('[data-testid="weights-sum"]').textContent()).toContain("1.20");
    await page.waitForFunction(
      (b) => [...document.querySelectorAll('[data-testid="playground-result"]')].map((e) => `${e.getAttribute("data-id")}:${e.getAttribute("data-score")}`).join("|") !== b,
      before,
    );
    const afterIds = (await snapshot()).split("|").map((s) => s.split(":")[0]);
    const afterScores = await results.evaluateAll((els) => els.map((e) => Number(e.getAttribute("data-score"))));
    // Ranked: scores never increase down the list.
    for (let i = 1; i < afterScores.length; i++) expect(afterScores[i]).toBeLessThanOrEqual(afterScores[i - 1] + 1e-9);
    expect(afterIds.join()).not.toBe(before.split("|").map((s) => s.split(":")[0]).join());
    await page.screenshot({ path: screenshotPath("memories-playground-reweighted") });

    await dark.goto(page.url());
    await dark.locator('[data-testid="playground-query"]').fill("Lisbon flight shellfish budget");
    await dark.keyboard.press("Enter");
    await dark.locator('[data-testid="playground-result"]').first().waitFor();
    await dark.screenshot({ path: screenshotPath("memories-playground-dark") });
  });

  it("renders review, memory.md and the dashboard", async () => {
    await page.goto(`${suite.url}/memories/dashboard?user=${enc(ANA)}`);
    await page.locator('[data-testid="chart-by-type"]').waitFor();
    await page.locator('[data-testid="embedding-status"]').getByText("lexical", { exact: false }).first().waitFor();
    await page.screenshot({ path: screenshotPath("memories-dashboard") });
    await dark.goto(page.url());
    await dark.locator('[data-testid="chart-by-type"]').waitFor();
    await dark.screenshot({ path: screenshotPath("memories-dashboard-dark") });

    // The seeded near duplicate belongs to max.k: the page shows it for that user, and "Keep both" resolves it.
    const open = (await suite.api.get(`/users/${enc(MAX)}/review`)).body.data as { id: string; kind: string }[];
    expect(open.length).toBeGreaterThan(0);
    await page.goto(`${suite.url}/memories/review?user=${enc(MAX)}`);
    await page.locator('[data-testid="extract-panel"]').waitFor();
    const item = page.locator(`[data-testid="review-item"][data-id="${open[0].id}"]`);
    await item.waitFor();
    expect(await item.getAttribute("data-kind")).toBe(open[0].kind);
    await page.screenshot({ path: screenshotPath("memories-review") });
    await item.locator('[data-testid="review-keep"]').click();
    await item.waitFor({ state: "detached" });
    expect(((await suite.api.get(`/users/${enc(MAX)}/review?status=resolved`)).body.data as { id: string; resolution: string }[]).find((r) => r.id === open[0].id)?.resolution).toBe("keep");

    await page.goto(`${suite.url}/memories/markdown?user=${enc(ANA)}`);
    await page.locator('[data-testid="md-editor"]').waitFor();
    expect(await page.locator('[data-testid="md-editor"]').inputValue()).toContain("shellfish");
    await page.locator('[data-testid="md-preview"]').click();
    await page.getByText("unchanged").first().waitFor();
    await page.screenshot({ path: screenshotPath("memories-markdown") });
  });
});
