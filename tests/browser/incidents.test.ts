import { randomUUID } from "node:crypto";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient } from "../helpers/api-client";
import { axeSeriousViolations, pageOverflow, screenshotPath, settled } from "../helpers/browser";
import { sharedBrowserSuite } from "../helpers/browser-shared";
import { until } from "../helpers/wait-until";
import { OWNER_PASSWORD } from "../helpers/owner";

// Issue 38, items 4 and 5: the memory incidents inbox in Chromium against the production
// server with accounts on. The incidents are real: memories and turns written through the
// API that the rules flag, found by a backfill scan (POST /incidents/scan). One travel
// conversation (profile k = 1 ranked by importance, history window of 2 turns) gives a missed
// memory, a restated one, a stale one and a dropped reference; a second app whose profile
// reserves nearly all of gpt-4o's window gives a prompt over the context window.
// Screenshots: test-results/screenshots/incidents-*.png at 1440, 1024 and 390 px.

const USER = "maria@example.com";
const APP = "travel-bot";
const TINY = "tiny-bot";
const WIDTHS = [1440, 1024, 390] as const;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Inc = { id: string; kind: string; severity: string; status: string; message_id: string; memory_ids: string[] };

describe("memory incidents in a browser", () => {
  // The worker's shared server (accounts on, the owner signed in), in a project of this file's own.
  const suite = sharedBrowserSuite("incidents");
  let api: ReturnType<typeof apiClient>;
  const ids: Record<string, string> = {};
  let conversation = "";
  let tinyConversation = "";
  const turns = Array.from({ length: 6 }, () => randomUUID());
  const byKind: Record<string, Inc> = {};
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    api = suite.api;
    const profile = await api.post(`/profiles/${APP}/versions`, {
      settings: {
        strategy: { type: "message_window", max_attached_message_count: 2 },
        memory: { k: 1, weights: { similarity: 0.1, recency: 0, importance: 0.9 } },
      },
    });
    expect(profile.status, JSON.stringify(profile.body)).toBe(201);
    // gpt-4o holds 128,000 tokens: reserving 127,990 for the answer leaves 10 for the prompt.
    const tiny = await api.post(`/profiles/${TINY}/versions`, {
      settings: { strategy: { type: "message_window", max_attached_message_count: 10 }, reserved_output_tokens: 127_990 },
    });
    expect(tiny.status, JSON.stringify(tiny.body)).toBe(201);
    const add = async (key: string, memory_type: string, content: string, importance_score: number) => {
      const r = await api.post(`/users/${encodeURIComponent(USER)}/memories`, { memory_type, content, importance_score });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      ids[key] = r.body.id;
    };
    // With k = 1 by importance, only the allergy is ever in the prompt; the seats rank 2nd.
    await add("peanuts", "fact", "Allergic to peanuts", 1);
    await add("aisle", "preference", "Prefers aisle seats on long flights", 0.5);
    await add("veggie", "preference", "Vegetarian since 2019", 0.1);
    await sleep(20);
    const c = await api.post("/conversations", { app_id: APP, end_user_id: USER, name: "Porto in May" });
    conversation = c.body.id;
    const thread = [
      ["Please book the Hotel Infante in Porto for May.", "Booked the Hotel Infante from May 3 to 6."],
      ["What is the weather like in Porto in May?", "Mild, around 20 degrees, with some rain."],
      ["Which seat do I prefer on long flights?", "I don't have that information. Do you have a favourite?"],
      ["I'm vegetarian since 2019, just so you know.", "Noted, I will keep that in mind."],
      ["Actually I'm no longer allergic to peanuts, the doctor cleared me.", "Great news, glad to hear it."],
      ["As I said before, is the Hotel Infante booking confirmed?", "I don't have any booking details in front of me."],
    ];
    const batch = await api.post(`/conversations/${conversation}/messages/batch`, {
      messages: thread.map(([query, answer], n) => ({ id: turns[n], parent_message_id: n ? turns[n - 1] : null, query, answer })),
    });
    expect(batch.status, JSON.stringify(batch.body)).toBe(201);
    const t = await api.post("/conversations", { app_id: TINY, end_user_id: USER, name: "Contract review" });
    tinyConversation = t.body.id;
    const long = await api.post(`/conversations/${tinyConversation}/messages/batch`, {
      messages: [{ id: randomUUID(), parent_message_id: null, query: "Summarize the attached rental contract clause by clause, with every deadline and fee in a table.", answer: "Here is the summary." }],
    });
    expect(long.status, JSON.stringify(long.body)).toBe(201);

    for (const scope of [{ conversation_id: conversation }, { conversation_id: tinyConversation }]) {
      let scan = await api.post("/incidents/scan", scope);
      // New turns are checked on arrival too: a scan of the same scope may be running already.
      if (scan.status === 409) scan = { status: 202, body: { id: scan.body.error.details?.[0]?.job_id ?? scan.body.error.details?.[0]?.id } };
      expect(scan.status, JSON.stringify(scan.body)).toBe(202);
      const job = await until("the scan to end", async () => (await api.get(`/incidents/scan/${scan.body.id}`)).body, (b) => b.status !== "running", 60_000);
      expect(job.status, JSON.stringify(job)).toBe("done");
    }
    const list = await api.get("/incidents?limit=200");
    expect(list.status, JSON.stringify(list.body)).toBe(200);
    for (const i of list.body.data as Inc[]) byKind[i.kind] ??= i;
    expect(Object.keys(byKind).sort(), JSON.stringify(list.body.data)).toEqual(["dropped_reference", "missed_memory", "over_context_window", "restated_memory", "stale_memory"]);
  });

  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => {});
  });

  /** A browser context of its own, the owner signed in with the file's project as the current one. */
  const signedIn = (): Promise<Page> => suite.signedIn();

  const card = (page: Page, id: string) => page.locator(`[data-testid="incident"][data-id="${id}"]`);
  const noAxe = async (page: Page, where: string, contrast: "all" | "width-only" = "all") => {
    const v = await axeSeriousViolations(page, { contrast });
    expect(v.map((x) => `${x.impact} ${x.id} (${x.help}) at ${x.targets.join(" | ")}`), where).toEqual([]);
  };
  /**
   * Screenshots at each width, with axe and no sideways scroll at each: colour-contrast on the
   * whole page at 1440 px, on what the width changes at 1024 and 390 (axeSeriousViolations'
   * "width-only"; the state's colours are the same at every width).
   */
  async function shots(page: Page, name: string) {
    for (const w of WIDTHS) {
      await page.setViewportSize({ width: w, height: 900 });
      await settled(page, w);
      // A full-page capture of a long list takes long on a loaded 2-core machine.
      await page.screenshot({ path: screenshotPath(`incidents-${name}-${w}`), fullPage: true, timeout: 60_000 });
      expect(await pageOverflow(page), `${name}: page scrolls sideways at ${w}px`).toBe(0);
      await noAxe(page, `${name} at ${w}px`, w === 1440 ? "all" : "width-only");
    }
    await page.setViewportSize({ width: 1440, height: 900 });
  }

  it("shows every kind's evidence in plain words, the chart, precision and the navigation's badge", async () => {
    const page = await signedIn();
    await page.goto(`${suite.url}/incidents`);
    await card(page, byKind.missed_memory.id).waitFor();
    // Open incidents of every kind (the inbox's default).
    expect((await page.locator('[data-testid="incident"]').evaluateAll((els) => els.map((e) => e.getAttribute("data-kind")))).sort()).toEqual(
      ["dropped_reference", "missed_memory", "over_context_window", "restated_memory", "stale_memory"],
    );
    const words = (kind: string) => card(page, byKind[kind].id).getByTestId("incident-evidence").textContent();
    expect(await words("missed_memory")).toMatch(/^Prefers aisle seats on long flights existed since \w{3} \d+ and ranked 2nd; k was 1; the agent answered “I don't have that information\.”$/);
    expect(await card(page, byKind.missed_memory.id).getByTestId("incident-severity").textContent()).toBe("high severity");
    expect(await words("restated_memory")).toMatch(/^The user wrote “I'm vegetarian since 2019, just so you know\.”, yet Vegetarian since 2019 was stored since \w{3} \d+ and ranked \d\w\w; k was 1\.$/);
    expect(await words("stale_memory")).toMatch(/^Allergic to peanuts was in the prompt; the user corrected it: “Actually I'm no longer allergic to peanuts, the doctor cleared me\.”$/);
    expect(await words("dropped_reference")).toMatch(/^The user referred back with “As I said” to “Please book the Hotel Infante in Porto for May\.” \(\w{3} \d+\), which the history window had dropped \(\d+ of \d+ earlier turns out\)\.$/i);
    expect(await words("over_context_window")).toMatch(/^The prompt took \d+ tokens; gpt-4o's window is 128,000 less 127,990 reserved for the answer, so it was \d+ over\.$/);
    // The memory in the sentence opens the memory's page.
    expect(await card(page, byKind.missed_memory.id).getByRole("link", { name: "Prefers aisle seats on long flights" }).getAttribute("href")).toBe(`/memories/${ids.aisle}`);

    // The chart counts what the list shows; its legend filters by kind.
    const summary = (await api.get("/incidents/summary")).body;
    const total = summary.days.reduce((s: number, d: { count: number }) => s + d.count, 0);
    expect(Number(await page.getByTestId("incident-chart").getAttribute("data-total"))).toBe(total);
    expect(await page.locator("#incident-chart-desc").textContent()).toMatch(/missed memory 1/);
    // Nobody judged anything yet: precision says so instead of a number.
    expect(await page.locator('[data-testid="precision-row"][data-kind="missed_memory"]').textContent()).toMatch(/not judged yet/);
    // The badge: open high-severity incidents, as the API counts them.
    expect(summary.open_high).toBeGreaterThan(0);
    await expect.poll(() => page.getByTestId("nav-incident-badge").getAttribute("data-count")).toBe(String(summary.open_high));
    await shots(page, "inbox");
    // Below 1280 px the links fold into the menu; its button carries the count.
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await page.getByTestId("menu-button-incident-badge").getAttribute("data-count")).toBe(String(summary.open_high));
    await page.setViewportSize({ width: 1440, height: 900 });

    await page.locator('[data-testid="incident-legend"] [data-kind="stale_memory"]').click();
    await expect.poll(() => page.locator('[data-testid="incident"]').evaluateAll((els) => els.map((e) => e.getAttribute("data-kind")))).toEqual(["stale_memory"]);
    expect(new URL(page.url()).searchParams.get("kind")).toBe("stale_memory");
  });

  it("filters and triages with the keyboard: acknowledge, resolve and false positive with notes; precision and the badge follow", async () => {
    const page = await signedIn();
    await page.goto(`${suite.url}/incidents`);
    await card(page, byKind.missed_memory.id).waitFor();
    // Kind by keyboard: focus the select, type the option's first letters.
    await page.locator("#incident-kind").focus();
    await page.keyboard.type("Missed");
    await expect.poll(() => page.locator('[data-testid="incident"]').evaluateAll((els) => els.map((e) => e.getAttribute("data-kind")))).toEqual(["missed_memory"]);
    await page.locator("#incident-severity").focus();
    await page.keyboard.type("High");
    await expect.poll(() => new URL(page.url()).searchParams.get("severity")).toBe("high");

    // Acknowledge the missed memory: Enter on its button, the note field takes the focus, Tab to submit, Enter.
    const missed = card(page, byKind.missed_memory.id);
    await missed.getByTestId("incident-to-acknowledged").focus();
    await page.keyboard.press("Enter");
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute("data-testid"))).toBe("incident-note");
    await page.keyboard.type("Looking at the ranking weights");
    await page.keyboard.press("Tab");
    await page.keyboard.press("Enter");
    await page.getByTestId("toast").filter({ hasText: "Acknowledged" }).waitFor();
    await expect.poll(async () => (await api.get(`/incidents/${byKind.missed_memory.id}`)).body).toMatchObject({ status: "acknowledged", note: "Looking at the ranking weights" });
    // The list showed open incidents: the acknowledged one left it; the empty state says why.
    await page.getByTestId("incidents-empty").waitFor();
    expect(await page.getByTestId("incidents-empty").textContent()).toMatch(/No incidents match these filters/);
    await shots(page, "empty-filtered");

    // Acknowledged ones, then resolve it.
    await page.locator("#incident-status").focus();
    await page.keyboard.type("Ack");
    await missed.waitFor();
    expect(await missed.getAttribute("data-status")).toBe("acknowledged");
    expect(await missed.getByTestId("incident-note-shown").textContent()).toMatch(/Looking at the ranking weights/);
    await shots(page, "acknowledged");
    await missed.getByTestId("incident-to-resolved").click();
    await page.keyboard.type("Raised k to 5");
    await missed.getByTestId("incident-status-submit").click();
    await page.getByTestId("toast").filter({ hasText: "Resolved" }).waitFor();
    await page.goto(`${suite.url}/incidents?status=resolved`);
    await missed.waitFor();
    expect(await missed.getAttribute("data-status")).toBe("resolved");
    await shots(page, "resolved");

    // The restated memory is a false positive; Escape closes an opened form first.
    await page.goto(`${suite.url}/incidents?kind=restated_memory`);
    const restated = card(page, byKind.restated_memory.id);
    await restated.getByTestId("incident-to-false_positive").click();
    await page.keyboard.press("Escape");
    await expect.poll(() => restated.getByTestId("incident-status-form").count()).toBe(0);
    await restated.getByTestId("incident-to-false_positive").click();
    await page.keyboard.type("The user was only confirming");
    await restated.getByTestId("incident-status-submit").click();
    await page.getByTestId("toast").filter({ hasText: "false positive" }).waitFor();
    expect((await api.get(`/incidents/${byKind.restated_memory.id}`)).body).toMatchObject({ status: "false_positive", note: "The user was only confirming" });
    await page.goto(`${suite.url}/incidents?status=false_positive`);
    await restated.waitFor();
    await shots(page, "false-positive");

    // Precision as judged: the missed memory was real (100 % of 1), the restated one was not (0 % of 1).
    await expect.poll(() => page.locator('[data-testid="precision-row"][data-kind="missed_memory"]').getAttribute("data-precision")).toBe("1");
    expect(await page.locator('[data-testid="precision-row"][data-kind="restated_memory"]').getAttribute("data-precision")).toBe("0");
    expect(await page.locator('[data-testid="precision-row"][data-kind="missed_memory"]').textContent()).toMatch(/100%\s*of 1 judged/);
    // The badge counts open high-severity incidents only: the missed memory left it.
    const summary = (await api.get("/incidents/summary")).body;
    await expect.poll(async () => (await page.getByTestId("nav-incident-badge").count()) ? await page.getByTestId("nav-incident-badge").getAttribute("data-count") : "0").toBe(String(summary.open_high));
    // Four states at three widths each, and the clicks between: 115 s alone at load 38, past
    // Vitest's 120 s (main's version timed out there); a hang guard, not a speed check.
  }, 300_000);

  it("replays the turn with the missed memory explained, and makes it an eval case of a chosen set", async () => {
    const set = await api.post("/evals/sets", { name: "incident regressions" });
    expect(set.status).toBe(201);
    const page = await signedIn();
    await page.goto(`${suite.url}/incidents?status=all&kind=missed_memory`);
    const missed = card(page, byKind.missed_memory.id);
    await missed.getByTestId("incident-make-eval").click();
    await page.getByTestId("incident-eval-set").selectOption(set.body.id);
    await page.getByTestId("incident-eval-submit").click();
    await expect.poll(() => missed.getByTestId("incident-eval-done").textContent()).toMatch(/Added a case to incident regressions/);
    const cases = (await api.get(`/evals/sets/${set.body.id}/cases`)).body.data;
    expect(cases).toMatchObject([{ user_id: USER, question: "Which seat do I prefer on long flights?", expected: { memory_ids: [ids.aisle] } }]);

    await missed.getByTestId("incident-replay").click();
    await page.waitForURL(/\/inspect\/replay\?/);
    const url = new URL(page.url());
    expect([url.searchParams.get("conversation"), url.searchParams.get("turn"), url.searchParams.get("memory")]).toEqual([conversation, turns[2], ids.aisle]);
    // The replay explains why that memory was out: cut by k.
    await expect.poll(() => page.getByTestId("why-panel").getAttribute("data-rule")).toBe("k");
  });

  it("marks the conversation's turns that have incidents, linking to them", async () => {
    const page = await signedIn();
    await page.goto(`${suite.url}/conversations/${conversation}`);
    const marks = page.getByTestId("turn-incident-mark");
    // The thread, its window and the incidents are three reads: slow on a loaded machine.
    await marks.first().waitFor({ timeout: 60_000 });
    const marked = await page.locator('[data-testid="transcript-turn"]:has([data-testid="turn-incident-mark"])').evaluateAll((els) => els.map((e) => e.getAttribute("data-id")));
    const ofConversation = (await api.get(`/incidents?conversation_id=${conversation}&limit=200`)).body.data as Inc[];
    const expected = [...new Set(ofConversation.map((i) => i.message_id))];
    expect(expected.length).toBeGreaterThan(2);
    expect(marked.sort()).toEqual(expected.sort());
    // An unmarked turn: the weather question.
    expect(await page.locator(`[data-testid="transcript-turn"][data-id="${turns[1]}"] [data-testid="turn-incident-mark"]`).count()).toBe(0);
    const missedMark = page.locator(`[data-testid="transcript-turn"][data-id="${turns[2]}"] [data-testid="turn-incident-mark"]`);
    expect(await missedMark.textContent()).toMatch(/Missed memory|incidents/);
    await page.screenshot({ path: screenshotPath("incidents-conversation-marks-1440") });
    await noAxe(page, "conversation with incident marks");
    await missedMark.click();
    await page.waitForURL(/\/incidents\?/);
    expect(new URL(page.url()).searchParams.get("conversation")).toBe(conversation);
    await card(page, byKind.missed_memory.id).waitFor();
    // Only this conversation's: the over-long prompt was in another one.
    expect(await card(page, byKind.over_context_window.id).count()).toBe(0);
  });

  it("a viewer reads incidents but every status and eval action is disabled, with the reason", async () => {
    // An address of this run's own: the shared server's accounts outlive the file.
    const inv = await suite.project.owner.post("/project/invitations", { email: `viewer-${randomUUID().slice(0, 8)}@example.com`, role: "viewer" });
    const ctx = await suite.browser.newContext({ viewport: { width: 1440, height: 900 } });
    contexts.push(ctx);
    const join = await ctx.request.post(`${suite.url}/api/auth/invitation/${inv.id}`, { data: { name: "Vi", password: OWNER_PASSWORD }, headers: { origin: suite.url } });
    expect(join.ok(), await join.text()).toBe(true);
    const page = await ctx.newPage();
    page.setDefaultTimeout(20_000);
    await page.goto(`${suite.url}/incidents?status=all`);
    await card(page, byKind.stale_memory.id).waitFor();
    // Once the page knows the role, every control that writes is disabled, with the reason on hover.
    await expect.poll(() => page.locator("[data-writes]:not([disabled])").count()).toBe(0);
    expect(await page.locator("[data-writes]").count()).toBeGreaterThan(4);
    expect(await page.locator("[data-writes]").first().getAttribute("title")).toMatch(/Read only/);
    expect(await page.getByTestId("read-only-note").textContent()).toMatch(/Read only: your role in this project is viewer/);
    // Reading stays: the replay of each turn is a link.
    expect(await page.getByTestId("incident-replay").count()).toBeGreaterThan(4);
    await shots(page, "viewer");
  });
});
