import type { Page } from "playwright-core";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { DEMO_IDS } from "@/lib/demo/demo-data";
import { screenshotPath } from "../helpers/browser";
import { sharedBrowserSuite } from "../helpers/browser-shared";

// The curation flows nobody ran in a browser before (issue 14): save the JSON editor, add and
// remove a relation, apply memory.md, approve and reject review items, and the conversations
// page's app and user filters. Each test sets up what it needs and checks the result through the API.

const ANA = "ana@example.com";
const MAX = "max.k@example.com";
const enc = encodeURIComponent;
type Mem = { id: string; content: string; version: number; structured_data: unknown; status: string };

describe("curation flows in a browser", () => {
  const suite = sharedBrowserSuite("curation-flows", { demo: true });
  let page: Page;
  beforeEach(async () => {
    // Each test in a new signed-in context: the last one's goes with its page.
    await page?.context().close();
    page = await suite.signedIn();
  });

  const newMemory = async (user: string, content: string): Promise<Mem> => {
    const r = await suite.api.post(`/users/${enc(user)}/memories`, { content, memory_type: "fact", actor: "api" });
    expect(r.status).toBe(201);
    return r.body;
  };

  it("saves structured data from the JSON editor", async () => {
    const m = await newMemory(ANA, "Has a museum pass for Lisbon");
    await page.goto(`${suite.url}/memories/${m.id}?user=${enc(ANA)}`);
    const input = page.locator('[data-testid="json-editor-input"]');
    await input.fill('{ "pass": "Lisboa Card", "days": 3 }');
    await page.locator('[data-testid="json-valid"]').waitFor();
    await page.locator('[data-testid="json-save"]').click();
    await expect.poll(async () => (await suite.api.get(`/memories/${m.id}`)).body.structured_data).toEqual({ pass: "Lisboa Card", days: 3 });
    expect((await suite.api.get(`/memories/${m.id}`)).body.version).toBe(m.version + 1);
  });

  it("adds a relation to another memory, then removes it", async () => {
    const a = await newMemory(ANA, "Booked a fado dinner for Friday");
    const b = await newMemory(ANA, "Friday evening is reserved for the Alfama walk");
    await page.goto(`${suite.url}/memories/${a.id}?user=${enc(ANA)}`);
    await page.locator('[data-testid="relation-target-search"]').fill("Alfama walk");
    await page.locator('[data-testid="relation-target-option"]').filter({ hasText: "Alfama walk" }).first().click();
    await page.locator('[data-testid="relation-type"]').selectOption("contradicts");
    await page.locator('[data-testid="relation-add"]').click();
    await page.locator('[data-testid="relation-item"][data-type="contradicts"]').waitFor();
    const rels = async () => ((await suite.api.get(`/memories/${a.id}/relations`)).body.data as { source_id: string; target_id: string; relation_type: string }[]).filter((r) => r.relation_type === "contradicts");
    expect((await rels()).map((r) => [r.source_id, r.target_id])).toEqual([[a.id, b.id]]);
    await page.screenshot({ path: screenshotPath("flow-relation-added") });

    await page.locator('[data-testid="relation-item"][data-type="contradicts"] [data-testid="relation-remove"]').click();
    await expect.poll(async () => (await rels()).length).toBe(0);
    await page.locator('[data-testid="relation-item"][data-type="contradicts"]').waitFor({ state: "detached" });
  });

  it("applies an edited memory.md: the added bullet becomes a memory", async () => {
    await page.goto(`${suite.url}/memories/markdown?user=${enc(ANA)}`);
    const editor = page.locator('[data-testid="md-editor"]');
    await page.waitForFunction(() => ((document.querySelector('[data-testid="md-editor"]') as HTMLTextAreaElement | null)?.value ?? "").includes("## Facts"));
    const text = await editor.inputValue();
    await editor.fill(text.replace("## Facts\n", "## Facts\n\n- Owns a folding bicycle for city trips\n"));
    await page.locator('[data-testid="md-preview"]').click();
    await page.locator('[data-testid="md-added"]').filter({ hasText: "folding bicycle" }).waitFor();
    await page.locator('[data-testid="md-apply"]').click();
    await expect
      .poll(async () => ((await suite.api.get(`/users/${enc(ANA)}/memories?q=folding%20bicycle`)).body.data as Mem[]).map((m) => m.content))
      .toEqual(["Owns a folding bicycle for city trips"]);
  });

  it("review: extracts from a conversation, approves one candidate and rejects another, then lists them as resolved", async () => {
    await page.goto(`${suite.url}/memories/review?user=${enc(ANA)}`);
    // The selected user, switched with the picker.
    await page.locator('[data-testid="memory-user-picker"]').selectOption(MAX);
    await page.waitForFunction((u) => new URL(location.href).searchParams.get("user") === u, MAX);
    await page.locator('[data-testid="extract-conversation"]').selectOption(DEMO_IDS.support);
    await page.locator('[data-testid="extract-run"]').click();
    await page.locator('[data-testid="extract-result"]').waitFor();
    const extracted = page.locator('[data-testid="review-item"][data-kind="extracted"]');
    await extracted.first().waitFor();
    expect(await extracted.count()).toBeGreaterThanOrEqual(2);
    const items = (await suite.api.get(`/users/${enc(MAX)}/review?kind=extracted`)).body.data as { id: string; candidate: { content: string } }[];
    const [keep, drop] = [items[0], items[1]];
    await page.screenshot({ path: screenshotPath("flow-review-extracted") });

    await page.locator(`[data-testid="review-item"][data-id="${keep.id}"] [data-testid="review-approve"]`).click();
    await page.locator(`[data-testid="review-item"][data-id="${keep.id}"]`).waitFor({ state: "detached" });
    await page.locator(`[data-testid="review-item"][data-id="${drop.id}"] [data-testid="review-reject"]`).click();
    await page.locator(`[data-testid="review-item"][data-id="${drop.id}"]`).waitFor({ state: "detached" });

    const contents = ((await suite.api.get(`/users/${enc(MAX)}/memories?limit=200`)).body.data as Mem[]).map((m) => m.content);
    expect(contents).toContain(keep.candidate.content);
    expect(contents).not.toContain(drop.candidate.content);

    await page.locator('[data-testid="review-status-resolved"]').click();
    await page.locator(`[data-testid="review-item"][data-id="${keep.id}"]`).waitFor();
    await page.locator(`[data-testid="review-item"][data-id="${drop.id}"]`).waitFor();
    expect(await page.locator(`[data-testid="review-item"][data-id="${keep.id}"] [data-testid="review-resolution"]`).textContent()).toContain("approve");
    expect(await page.locator(`[data-testid="review-item"][data-id="${drop.id}"] [data-testid="review-resolution"]`).textContent()).toContain("reject");
    await page.screenshot({ path: screenshotPath("flow-review-resolved") });
  });

  it("filters conversations by app and by user", async () => {
    await page.goto(`${suite.url}/conversations`);
    await page.locator('[data-testid="conversation-row"]').first().waitFor();
    const all = await page.locator('[data-testid="conversation-row"]').count();
    const expected = async (q: string) => ((await suite.api.get(`/conversations?${q}&limit=200`)).body.data as { id: string }[]).map((c) => c.id);
    const rowIds = () => page.locator('[data-testid="conversation-row"]').evaluateAll((els) => els.map((e) => e.getAttribute("data-id")));

    await page.locator('[data-testid="filter-app"]').selectOption("support-bot");
    await page.waitForFunction(() => new URL(location.href).searchParams.get("app") === "support-bot");
    const bySupport = await expected("app_id=support-bot");
    expect(bySupport.length).toBeLessThan(all);
    await expect.poll(rowIds).toEqual(bySupport);

    await page.locator('[data-testid="filter-app"]').selectOption("");
    await page.locator('[data-testid="filter-user"]').selectOption(ANA);
    await page.waitForFunction(() => new URL(location.href).searchParams.get("user") === "ana@example.com");
    const byAna = await expected(`user_id=${enc(ANA)}`);
    expect(byAna.length).toBeGreaterThan(0);
    expect(byAna.length).toBeLessThan(all);
    await expect.poll(rowIds).toEqual(byAna);
  });
});
