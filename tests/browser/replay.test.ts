import { randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { axeSeriousViolations, pageOverflow, screenshotPath } from "../helpers/browser";
import { sharedBrowserSuite } from "../helpers/browser-shared";

// Issue 22, part 4: replay a past turn in the UI. One story, set up through the API: a travel
// agent (profile k = 2, ranked by importance) answers four turns; between turns 2 and 3 a
// memory is added; after the turns one memory is edited, one archived and one created. From
// the conversation view: replay turn 1, scrub to turn 4 with the arrow keys, ask why the
// peanut allergy (rank 4) was left out, replay with k = 4, reload, and see the same.
// Screenshots at 1440, 1024 and 390 px in test-results/screenshots/replay-*.png;
// MEMSCOPE_README_SHOT=1 also writes docs/replay.png.

const USER = "maria@example.com";
const APP = "travel-bot";
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("replay a turn in a browser", () => {
  // The worker's shared server (accounts on, the owner signed in), in a project of this file's own.
  const suite = sharedBrowserSuite("replay");
  const ids: Record<string, string> = {};
  let conversation = "";
  const turns = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];

  beforeAll(async () => {
    const api = suite.api;
    const profile = await api.post(`/profiles/${APP}/versions`, {
      settings: {
        strategy: { type: "message_window", max_attached_message_count: 10 },
        system_prompt: "You are a travel assistant for families. Be brief.",
        memory: { k: 2, weights: { similarity: 0.1, recency: 0, importance: 0.9 } },
      },
      note: "k = 2",
    });
    expect(profile.status, JSON.stringify(profile.body)).toBe(201);
    // Importances 0.15 apart: with similarity weighing 0.1, the ranks are the importances'.
    const add = async (key: string, memory_type: string, content: string, importance_score: number) => {
      const r = await api.post(`/users/${encodeURIComponent(USER)}/memories`, { memory_type, content, importance_score });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      ids[key] = r.body.id;
    };
    await add("window", "preference", "Prefers window seats on long flights", 0.85);
    await add("lisbon", "fact", "Lives in Lisbon with two kids, 4 and 7", 0.7);
    await add("peanuts", "fact", "Allergic to peanuts", 0.55);
    await add("veggie", "preference", "Vegetarian since 2019", 0.4);
    await add("postcards", "pattern", "Collects vintage postcards on every trip", 0.25);
    await sleep(10);
    const c = await api.post("/conversations", { app_id: APP, end_user_id: USER, name: "Family weekend in Porto" });
    conversation = c.body.id;
    const batch = (messages: unknown[]) => api.post(`/conversations/${conversation}/messages/batch`, { messages });
    expect(
      (
        await batch([
          { id: turns[0], parent_message_id: null, query: "Can you suggest a weekend trip from Lisbon?", answer: "Porto is three hours by train: the Ribeira, the bridges and the port cellars." },
          { id: turns[1], parent_message_id: turns[0], query: "What should I pack for the kids?", answer: "Layers, rain jackets and snacks for the train." },
        ])
      ).status,
    ).toBe(201);
    await sleep(10);
    await add("porto", "fact", "Booked a family trip to Porto for May", 1);
    await sleep(10);
    expect(
      (
        await batch([
          { id: turns[2], parent_message_id: turns[1], query: "Any restaurant ideas in Porto?", answer: "Try a francesinha at Café Santiago; ask about nuts in the sauces." },
          { id: turns[3], parent_message_id: turns[2], query: "What snacks are safe for the flight?", answer: "Fruit, rice cakes and cheese; skip the trail mix." },
        ])
      ).status,
    ).toBe(201);
    await sleep(10);
    // After the turns: an edit, an archive, a new memory.
    const lisbon = await api.get(`/memories/${ids.lisbon}`);
    expect((await api.patch(`/memories/${ids.lisbon}`, { version: lisbon.body.version, content: "Lives in Porto with two kids, 4 and 7" })).status).toBe(200);
    expect((await api.post(`/memories/${ids.veggie}/archive`, {})).status).toBe(200);
    await add("duolingo", "pattern", "Learning Portuguese on Duolingo", 0.6);
  });

  const title = (page: Page) => page.locator('[data-testid="replay-title"]');
  /** The replay shown is this turn's (not the previous one kept on screen while it loads). */
  const settled = (page: Page) => page.waitForFunction(() => document.getElementById("replay-panel")?.getAttribute("aria-busy") === "false");
  const noAxe = async (page: Page, where: string, contrast: "all" | "width-only" = "all") => {
    const v = await axeSeriousViolations(page, { contrast });
    expect(v.map((x) => `${x.impact} ${x.id} (${x.help}) at ${x.targets.join(" | ")}`), where).toEqual([]);
  };

  it("replays a turn from the conversation view, scrubs, answers why not, opens a counterfactual, and a reload shows the same", async () => {
    const page = await suite.tab.take(1440, 1000);
    await page.goto(`${suite.url}/conversations/${conversation}`);
    const first = page.locator(`[data-testid="transcript-turn"][data-id="${turns[0]}"] [data-testid="replay-turn"]`);
    await first.waitFor();
    // Every answered turn of the thread has its own entry.
    expect(await page.locator('[data-testid="transcript-turn"] [data-testid="replay-turn"]').count()).toBe(4);
    await page.screenshot({ path: screenshotPath("replay-entry-1440") });
    await first.click();
    await page.waitForURL(/\/inspect\/replay\?/);
    await expect.poll(() => title(page).textContent()).toBe("Replay of turn 1");
    await settled(page);
    expect(page.url()).toContain(`turn=${turns[0]}`);
    await expect.poll(() => page.locator('[data-testid="step-diff"]').textContent()).toMatch(/first turn/);
    // The prompt of then: system (with two memories), the query.
    expect(await page.locator('[data-testid="prompt-then"] [data-testid="prompt-bubble"]').evaluateAll((els) => els.map((e) => e.getAttribute("data-section")))).toEqual(["system", "query"]);
    const inPrompt = () => page.locator('[data-testid="retrieval-row"][data-in-prompt="true"]').evaluateAll((els) => els.map((e) => e.getAttribute("data-id")));
    expect(await inPrompt()).toEqual([ids.window, ids.lisbon]);
    // Lisbon, in this prompt and edited since, is asked why it was in, not why not.
    const lisbonSince = page.locator(`[data-testid="since-row"][data-id="${ids.lisbon}"]`);
    expect(await lisbonSince.locator('[data-testid="since-why"]').textContent()).toBe("Why in the prompt?");
    expect(await lisbonSince.locator('[data-testid="since-times"]').textContent()).toMatch(/^changed /);
    const duolingoSince = page.locator(`[data-testid="since-row"][data-id="${ids.duolingo}"]`);
    expect(await duolingoSince.locator('[data-testid="since-times"]').textContent()).toMatch(/^created /);
    expect(await duolingoSince.locator('[data-testid="since-why"]').textContent()).toBe("Why not this memory?");
    expect(await page.locator(`[data-testid="since-row"][data-id="${ids.veggie}"] [data-testid="since-times"]`).textContent()).toMatch(/^archived /);

    // Scrub three turns with the keyboard: the window, the memories and the prompt follow.
    const range = page.locator('[data-testid="scrub-range"]');
    await range.focus();
    for (const n of [2, 3, 4]) {
      await page.keyboard.press("ArrowRight");
      await expect.poll(() => title(page).textContent()).toBe(`Replay of turn ${n}`);
      await settled(page);
      await page.waitForFunction(() => !/Comparing/.test(document.querySelector('[data-testid="step-diff"]')?.textContent ?? "Comparing"));
      // Each turn adds the previous turn's query and answer to the history: two new messages.
      expect(await page.locator('[data-testid="prompt-then"] [data-testid="diff-only"]').count(), `turn ${n}`).toBeGreaterThanOrEqual(2);
      if (n === 3) {
        // The memory written between turns 2 and 3 enters the prompt (and pushes one out).
        expect(await page.locator('[data-testid="step-diff"]').getAttribute("data-memories-in")).toBe("1");
        expect(await page.locator(`[data-testid="retrieval-row"][data-id="${ids.porto}"] [data-testid="new-in-prompt"]`).count()).toBe(1);
        expect(await inPrompt()).toEqual([ids.porto, ids.window]);
      }
    }
    // A step draws its score bars at once: their widths easing over 300 ms ran past the next key
    // on a held one, a layout and a paint every frame (docs/benchmarks.md section 72).
    const easing = await page.locator('[data-testid="retrieval-row"] [data-testid^="bar-"]').evaluateAll((els) => [...new Set(els.map((e) => getComputedStyle(e).transitionDuration))]);
    expect(easing).toEqual(["0s"]);
    // The URL follows a moment after the last step.
    await expect.poll(() => page.url()).toContain(`turn=${turns[3]}`);
    await expect.poll(() => range.getAttribute("aria-valuetext")).toMatch(/^turn 4 of 4/);
    // The answer being explained is on the page, with the way back to it.
    await expect.poll(() => page.locator('[data-testid="explained-answer"]').textContent()).toBe("Fruit, rice cakes and cheese; skip the trail mix.");
    expect(await page.locator('[data-testid="explained-query"]').textContent()).toBe("What snacks are safe for the flight?");
    expect(await page.locator('[data-testid="explained-turn-link"]').getAttribute("href")).toMatch(new RegExp(`^/conversations/${conversation}\\?leaf=.*#turn-${turns[3]}$`));

    // Marks of what happened since: edited, archived, created later.
    const changes = (id: string) => page.locator(`[data-testid="since-row"][data-id="${id}"]`).getAttribute("data-changes");
    expect(await changes(ids.lisbon)).toBe("edited_since");
    expect(await changes(ids.veggie)).toBe("archived_since");
    expect(await changes(ids.duolingo)).toBe("created_later");
    expect(await page.locator(`[data-testid="retrieval-row"][data-id="${ids.lisbon}"] [data-testid="since-badge"]`).textContent()).toBe("edited since");

    // Why not the peanut allergy? Cut by k at rank 4 (behind the Porto trip, window seats, Lisbon).
    const peanuts = page.locator(`[data-testid="retrieval-row"][data-id="${ids.peanuts}"]`);
    expect(await peanuts.getAttribute("data-rule")).toBe("k");
    await peanuts.locator('[data-testid="why-button"]').click();
    const why = page.locator('[data-testid="why-panel"]');
    await expect.poll(() => why.getAttribute("data-rule")).toBe("k");
    expect(await why.locator('[data-testid="why-reason"]').textContent()).toMatch(/rank 4 is past k = 2/);
    expect(await why.locator('[data-testid="why-content-then"]').textContent()).toBe("Allergic to peanuts");
    await expect.poll(() => page.url()).toContain(`memory=${ids.peanuts}`);
    await page.screenshot({ path: screenshotPath("replay-1440"), fullPage: true });
    if (process.env.MEMSCOPE_README_SHOT === "1") {
      await page.screenshot({ path: path.resolve(__dirname, "../../docs/replay.png") });
      expect(fs.statSync(path.resolve(__dirname, "../../docs/replay.png")).size).toBeGreaterThan(10_000);
    }
    await noAxe(page, "replay at 1440");

    // What if k had been 4? Lisbon and the peanut allergy come in.
    await page.locator('[data-testid="tab-whatif"]').click();
    await page.locator('[data-testid="whatif-k"]').fill("4");
    await page.locator('[data-testid="whatif-run"]').click();
    const diffIn = () => page.locator('[data-testid="diff-memory-in"]').evaluateAll((els) => els.map((e) => e.getAttribute("data-id")).sort());
    const expectedIn = [ids.lisbon, ids.peanuts].sort();
    await expect.poll(diffIn).toEqual(expectedIn);
    expect(await page.locator('[data-testid="diff-memory-out"]').count()).toBe(0);
    expect(await page.locator('[data-testid="variant-column-a"] [data-testid="diff-only"]').count()).toBe(1);
    expect(await page.locator('[data-testid="variant-column-b"] [data-testid="diff-only"]').count()).toBe(1);
    expect(await page.locator('[data-testid="diff-tokens"][data-section="memories"]').count()).toBe(1);
    await expect.poll(() => page.url()).toContain("v.k=4");
    await page.screenshot({ path: screenshotPath("replay-whatif-1440"), fullPage: true });
    await noAxe(page, "what if at 1440");

    // The whole state is in the URL: a reload shows the same turn, tab, variant and memory.
    const url = page.url();
    await page.reload();
    await expect.poll(() => title(page).textContent()).toBe("Replay of turn 4");
    await expect.poll(diffIn).toEqual(expectedIn);
    expect(page.url()).toBe(url);
    await page.locator('[data-testid="tab-replay"]').click();
    await expect.poll(() => page.locator('[data-testid="why-panel"]').getAttribute("data-rule")).toBe("k");
  });

  it("why not from a memory's page and from the memory table, for the replayed turn", async () => {
    const page = await suite.tab.take(1440, 900);
    const ref = `${conversation}.${turns[3]}`;
    await page.goto(`${suite.url}/memories/${ids.peanuts}?user=${encodeURIComponent(USER)}&replay=${ref}`);
    await page.locator('[data-testid="ask-why-not"]').click();
    await expect.poll(() => page.locator('[data-testid="why-panel"]').getAttribute("data-rule")).toBe("k");
    // A memory written after the turn: "created after this turn".
    await page.goto(`${suite.url}/memories/${ids.duolingo}?user=${encodeURIComponent(USER)}&replay=${ref}`);
    await page.locator('[data-testid="ask-why-not"]').click();
    await expect.poll(() => page.locator('[data-testid="why-panel"]').getAttribute("data-rule")).toBe("created_after_turn");
    expect(await page.locator('[data-testid="why-verdict"]').textContent()).toMatch(/created after this turn/);
    // Its times in plain words, not ISO stamps.
    const reason = (await page.locator('[data-testid="why-reason"]').textContent()) ?? "";
    expect(reason).toMatch(/^created [A-Z][a-z]{2} \d{1,2}, \d{4}, \d{1,2}:\d{2}\s?[AP]M, after this turn/);
    expect(reason).not.toMatch(/\d{4}-\d{2}-\d{2}T/);

    await page.goto(`${suite.url}/memories?user=${encodeURIComponent(USER)}&replay=${ref}`);
    const row = page.locator(`[data-testid="memory-row"][data-id="${ids.postcards}"]`);
    await row.locator('[data-testid="row-why-not"]').click();
    await page.waitForURL(/\/inspect\/replay\?/);
    await expect.poll(() => page.locator('[data-testid="why-panel"]').getAttribute("data-rule")).toBe("k");
    expect(await page.locator('[data-testid="why-reason"]').textContent()).toMatch(/rank 6 is past k = 2/);
  });

  it("what if, for a turn older than the profile's first version: every version of the app's profile is offered", async () => {
    const api = suite.api;
    const c = await api.post("/conversations", { app_id: APP, end_user_id: USER, name: "An old question" });
    expect(c.status).toBe(201);
    const old = randomUUID();
    const r = await api.post(`/conversations/${c.body.id}/messages/batch`, {
      messages: [{ id: old, parent_message_id: null, query: "Where do I live?", answer: "In Lisbon.", created_at: "2020-03-01T10:00:00Z" }],
    });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    const page = await suite.tab.take(1440, 900);
    await page.goto(`${suite.url}/inspect/replay?conversation=${c.body.id}&turn=${old}`);
    await settled(page);
    await page.locator('[data-testid="tab-whatif"]').click();
    const select = page.locator('[data-testid="whatif-profile"]');
    await expect.poll(() => select.locator("option").allTextContents()).toEqual(["as then", "v1"]);
  });

  it("the scrubber's next turns are fetched while the current one is read: a step onto a turn not seen before asks the server nothing", async () => {
    const page = await suite.tab.take(1440, 900);
    // Which turns the page asked POST /replay for, in order.
    const asked: string[] = [];
    const onRequest = (req: { url(): string; method(): string; postData(): string | null }) => {
      if (req.method() === "POST" && req.url().endsWith("/api/v1/replay")) asked.push(JSON.parse(req.postData() ?? "{}").message_id);
    };
    page.on("request", onRequest);
    try {
      await page.goto(`${suite.url}/inspect/replay?conversation=${conversation}&turn=${turns[1]}`);
      await expect.poll(() => title(page).textContent()).toBe("Replay of turn 2");
      await settled(page);
      // Two turns each way once turn 2 is on screen (there is one behind it).
      await expect.poll(() => [...new Set(asked)].sort()).toEqual([...turns].sort());
      await page.waitForFunction(() => document.querySelector('[data-testid="step-diff"][data-memories-in]'));
      const before = asked.length;
      await page.locator('[data-testid="scrub-range"]').focus();
      await page.keyboard.press("ArrowRight");
      await expect.poll(() => title(page).textContent()).toBe("Replay of turn 3");
      await settled(page);
      // Turn 3's replay and its comparison with turn 2 came from what was fetched ahead.
      await page.waitForFunction(() => document.querySelector('[data-testid="step-diff"][data-memories-in="1"]'));
      expect(await page.locator(`[data-testid="retrieval-row"][data-id="${ids.porto}"] [data-testid="new-in-prompt"]`).count()).toBe(1);
      expect(asked.slice(before).filter((t) => t === turns[2])).toEqual([]);
      await noAxe(page, "replay after a prefetched step");
    } finally {
      page.off("request", onRequest);
    }
  });

  // One load for both widths (the layout follows the width by CSS alone): each state checked at
  // 1024 px, then the same tab resized to 390. Colour-contrast only on what a width changes: both
  // states had it on the whole page at 1440 px above (axeSeriousViolations' "width-only").
  it("the replay and the what-if at 1024 and 390 px: no sideways scroll, no serious axe violation", async () => {
    const page = await suite.tab.take(1024, 900);
    const atWidths = async (name: string, widths: number[]) => {
      for (const width of widths) {
        await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
        await page.waitForFunction((w) => window.innerWidth === w, width);
        await settled(page);
        await page.screenshot({ path: screenshotPath(`${name}-${width}`), fullPage: true });
        expect(await pageOverflow(page), `${name} at ${width}`).toBe(0);
        await noAxe(page, `${name} at ${width}`, "width-only");
      }
    };
    await page.goto(`${suite.url}/inspect/replay?conversation=${conversation}&turn=${turns[3]}&memory=${ids.peanuts}`);
    await expect.poll(() => page.locator('[data-testid="why-panel"]').getAttribute("data-rule")).toBe("k");
    await atWidths("replay", [1024, 390]);
    await page.locator('[data-testid="tab-whatif"]').click();
    await page.locator('[data-testid="whatif-k"]').fill("4");
    await page.locator('[data-testid="whatif-run"]').click();
    await page.locator('[data-testid="variant-diff"]').waitFor();
    await atWidths("replay-whatif", [390, 1024]);
  });
});
