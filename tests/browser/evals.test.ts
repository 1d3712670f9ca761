import { describe, expect, it } from "vitest";
import { checkAtWidths, screenshotPath } from "../helpers/browser";
import { sharedBrowserSuite } from "../helpers/browser-shared";

// The evals area (issue 23) in Chromium against the production server with the demo seed:
// a playground search saved as a test case (its right hit marked), a set run twice (the
// second with the cosine weight at 0), a failed case opened to its retrieval, and the two
// runs compared. Screenshots at 1440, 1024 and 390 px; axe at each.

const ANA = "ana@example.com";

describe("evals in a browser", () => {
  const suite = sharedBrowserSuite("evals", { demo: true });

  it("save a playground search as a case, run the set, open a failed case, compare two runs", async () => {
    const page = await suite.tab.take(1440, 900);
    await page.goto(`${suite.url}/memories/playground?user=${encodeURIComponent(ANA)}`);
    await page.locator('[data-testid="playground-query"]').fill("Which seat do I prefer on flights?");
    await page.keyboard.press("Enter");
    await page.locator('[data-testid="playground-result"]').first().waitFor();
    const right = page.locator('[data-testid="playground-result"]', { hasText: "window seat" }).first();
    const rightId = await right.getAttribute("data-id");
    await right.locator('[data-testid="mark-right-hit"]').check();
    await page.locator("#playground-test-set").fill("browser-set");
    await page.getByRole("button", { name: /Save as test \(1 expected\)/ }).click();
    await page.getByRole("status").filter({ hasText: "Saved to" }).waitFor();

    const [set] = (await suite.api.get("/evals/sets?name=browser-set")).body.data;
    const cases = (await suite.api.get(`/evals/sets/${set.id}/cases`)).body.data;
    expect(cases).toMatchObject([{ user_id: ANA, question: "Which seat do I prefer on flights?", expected: { memory_ids: [rightId] } }]);
    // Two more: one the demo data answers, one it cannot.
    await suite.api.post(`/evals/sets/${set.id}/cases`, {
      cases: [
        { user_id: ANA, question: "Do I eat shellfish?", expected: { texts: ["shellfish"] }, category: "diet" },
        { user_id: ANA, question: "What is my cat called?", expected: { texts: ["cat named"] }, category: "pets" },
      ],
    });

    await page.goto(`${suite.url}/evals?set=${set.id}`);
    await page.getByRole("button", { name: "Run set" }).click();
    await page.locator('[data-testid="eval-run-row"]').first().waitFor();
    await page.getByLabel("Similarity weight").fill("0");
    await page.getByLabel("Label").fill("no cosine");
    await page.getByRole("button", { name: "Run set" }).click();
    await expect.poll(() => page.locator('[data-testid="eval-run-row"]').count()).toBe(2);
    // The new run opens (the URL names it) before its cases are read.
    await expect.poll(async () => (await page.locator('[data-testid="eval-run-row"]').nth(1).getAttribute("data-run")) === new URL(page.url()).searchParams.get("run")).toBe(true);
    await page.locator('[data-testid="eval-chart"] svg[role="img"]').waitFor();

    // The failed case's drill-down: what was expected, what came back with its score parts.
    await page.locator('[data-testid="eval-run-case"][data-hit="false"]').first().click();
    const detail = page.locator('[data-testid="eval-case-detail"]');
    await detail.waitFor();
    expect(await detail.textContent()).toMatch(/miss: nothing expected within k=10/);
    expect(await detail.locator('[data-testid="eval-retrieved"]').count()).toBeGreaterThan(0);
    expect(await detail.textContent()).toMatch(/cosine \d\.\d{3}/);
    // The saved case expects a memory: shown by its text, the id only on hover.
    await page.locator('[data-testid="eval-run-case"]', { hasText: "Which seat do I prefer on flights?" }).first().click();
    await expect.poll(async () => (await detail.locator('[data-testid="expected-memory"]').first().textContent()) ?? "").toMatch(/window seat/i);
    expect(await detail.locator('[data-testid="expected-memory"]').first().getAttribute("title")).toBe(rightId);

    // Compare the second run against the first.
    await page.screenshot({ path: screenshotPath("evals-before-compare"), fullPage: true });
    // The newest run is the open one: the first run's row offers itself as the base.
    await page.locator('[data-testid="eval-run-row"]').first().getByRole("button", { name: "Use as base" }).click();
    const cmp = page.locator('[data-testid="eval-comparison"]');
    await cmp.waitFor();
    expect(await cmp.textContent()).toMatch(/paired cases/);
    expect(await cmp.locator("tbody tr").count()).toBe(8);
    // Metrics by their names, not the API's keys.
    const metricNames = await cmp.locator("tbody th").allTextContents();
    expect(metricNames).toEqual(["Recall@k", "Precision@k", "MRR", "nDCG@k", "Hit rate", "Tokens per case", "Latency p50 (ms)", "Latency p95 (ms)"]);

    await checkAtWidths(page, "evals");
  }, 120_000);

  it("comparing runs of different configurations warns on the page, naming each field with its values in plain words; runs alike do not", async () => {
    const set = (await suite.api.post("/evals/sets", { name: "config-change-set" })).body;
    await suite.api.post(`/evals/sets/${set.id}/cases`, {
      cases: [
        { user_id: ANA, question: "Do I eat shellfish?", expected: { texts: ["shellfish"] } },
        { user_id: ANA, question: "Which seat do I prefer on flights?", expected: { texts: ["window seat"] } },
      ],
    });
    const run = async (config: Record<string, unknown>) => {
      const r = await suite.api.post(`/evals/sets/${set.id}/runs`, { config });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      return r.body.id as string;
    };
    const base = await run({ k: 5 });
    const wider = await run({ k: 10, weights: { similarity: 0.2 } });
    const alike = await run({ k: 5 });
    const page = await suite.tab.take(1440, 900);
    const cmp = page.locator('[data-testid="eval-comparison"]');

    // Same configuration: the comparison is drawn with no warning.
    await page.goto(`${suite.url}/evals?set=${set.id}&run=${alike}&base=${base}`);
    await expect.poll(async () => (await cmp.textContent()) ?? "").toMatch(/paired cases/);
    expect(await page.locator('[data-testid="config-changes"]').count()).toBe(0);

    // k and the similarity weight differ: an alert says so, each field with both values.
    await page.goto(`${suite.url}/evals?set=${set.id}&run=${wider}&base=${base}`);
    await expect.poll(async () => (await cmp.textContent()) ?? "").toMatch(/paired cases/);
    const warning = cmp.locator('[data-testid="config-changes"]');
    expect(await warning.getAttribute("role")).toBe("alert");
    expect(await warning.textContent()).toMatch(/differ in configuration: their scores do not compare like with like/);
    expect(await warning.locator("li").allTextContents()).toEqual([
      "k: 5 in the base run, 10 in this one",
      // In plain words, as the replay's variant labels: no JSON braces or quotes.
      "weights: similarity 0.6, recency 0.2, importance 0.2 in the base run, similarity 0.2, recency 0.2, importance 0.2 in this one",
    ]);
    await checkAtWidths(page, "evals-config-changes", async (w) => expect(await warning.isVisible(), `the warning shows at ${w}px`).toBe(true));
  }, 120_000);

  it("a benchmark question the file left without evidence is marked unscorable in the run's cases and its drill-down", async () => {
    const fs = await import("node:fs");
    const path = await import("node:path");
    const file = JSON.parse(fs.readFileSync(path.resolve(__dirname, "../fixtures/evals/locomo-sample.json"), "utf8"));
    // An evidence id no turn has: the question keeps no evidence.
    file[0].qa[0].evidence = ["D9:99"];
    const set = (await suite.api.post("/evals/sets", { name: "unscorable-set" })).body;
    const imp = await suite.api.post(`/evals/sets/${set.id}/import`, { format: "locomo", content: JSON.stringify(file), user_prefix: "browser-locomo" });
    expect(imp.status, JSON.stringify(imp.body)).toBe(201);
    const run = await suite.api.post(`/evals/sets/${set.id}/runs`, { config: { k: 5 } });
    expect(run.status, JSON.stringify(run.body)).toBe(201);
    const page = await suite.tab.take(1440, 900);
    await page.goto(`${suite.url}/evals?set=${set.id}&run=${run.body.id}`);
    const row = page.locator('[data-testid="eval-run-case"]', { hasText: file[0].qa[0].question });
    await row.waitFor();
    expect(await row.locator('[data-testid="unscorable"]').textContent()).toBe("unscorable");
    // The question with evidence is scored as before.
    expect(await page.locator('[data-testid="eval-run-case"]', { hasText: file[0].qa[1].question }).locator('[data-testid="unscorable"]').count()).toBe(0);
    await row.click();
    const detail = page.locator('[data-testid="eval-case-detail"]');
    await expect.poll(async () => (await detail.textContent()) ?? "").toMatch(/unscorable: the benchmark file gave this question no evidence/);
    await checkAtWidths(page, "evals-unscorable");
  }, 120_000);
});
