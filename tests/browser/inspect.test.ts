import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { DEMO_IDS } from "@/lib/demo/demo-data";
import { screenshotPath } from "../helpers/browser";
import { writeDemoConversations, writeDemoUserMemories } from "../helpers/browser-demo";
import { sharedBrowserSuite } from "../helpers/browser-shared";

// The prompt inspector in real Chromium against the production server with the demo data.
// Screenshots (light and dark) land in test-results/screenshots for a person to look at.
// On the worker's shared server, signed in as its owner, in a project of the file's own holding
// the demo conversations and ana's memories, written through the API (browser-demo.ts).

describe("prompt inspector in a browser", () => {
  const suite = sharedBrowserSuite("inspect");
  let page: Page, dark: Page;

  beforeAll(async () => {
    const demo = async () => {
      await writeDemoConversations(suite.api);
      await writeDemoUserMemories(suite.api, "ana@example.com");
    };
    const darkPage = async () => {
      const p = await suite.signedIn(1440, 1000);
      await p.emulateMedia({ colorScheme: "dark" });
      return p;
    };
    [page, dark] = await Promise.all([suite.signedIn(1440, 1000), darkPage(), demo()]);
  });

  const bubbles = (p: Page = page) => p.locator('[data-testid="prompt-bubble"]');
  const run = () => page.locator('[data-testid="inspect-run"]').click();
  /** Waits until no run is in flight (the results section drops aria-busy). */
  const top = (p: Page = page) => p.evaluate(() => window.scrollTo(0, 0));
  const settled = (p: Page = page) => p.waitForFunction(() => document.querySelector('section[aria-label="Result"]')?.getAttribute("aria-busy") === "false");

  it("stored conversation + query with message_window: bubbles, memories, stacked bar, dropped items", async () => {
    await page.goto(`${suite.url}/inspect`);
    await page.locator('[data-testid="inspect-empty"]').waitFor();
    await page.screenshot({ path: screenshotPath("inspect-empty") });

    await page.locator('[data-testid="inspect-source-tab-stored"]').click();
    await page.locator('[data-testid="inspect-user"]').fill("ana@example.com");
    const conv = page.locator('[data-testid="inspect-conversation"]');
    await page.waitForFunction((id) => !!document.querySelector(`[data-testid="inspect-conversation"] option[value="${id}"]`), DEMO_IDS.long);
    await conv.selectOption(DEMO_IDS.long);
    await page.locator('[data-testid="inspect-leaf"]').waitFor();
    await page.locator('[data-testid="inspect-query"]').fill("what's my budget?");
    await page.locator('[data-testid="inspect-system-prompt"]').fill("You are Ana's travel companion. Answer briefly.");
    await page.locator('[data-testid="strategy-select"]').selectOption("message_window");
    await page.locator('[data-testid="strategy-field-max_attached_message_count"]').fill("6");
    await run();

    await bubbles().first().waitFor();
    await settled();
    const sections = await bubbles().evaluateAll((els) => els.map((e) => e.getAttribute("data-section")));
    expect(sections[0]).toBe("system");
    expect(sections.filter((s) => s === "history")).toHaveLength(6);
    expect(sections.at(-1)).toBe("query");

    // Memories were retrieved and included in the system message.
    await page.locator('[data-testid="memories-section"]').waitFor();
    expect(await page.locator('[data-testid="memory-item"][data-included="true"]').count()).toBeGreaterThan(0);
    expect(await page.locator('[data-testid="prompt-bubble"]').first().textContent()).toMatch(/budget/i);

    const bar = page.locator('[data-testid="budget-stacked-bar"]');
    for (const s of ["system", "memories", "history", "query", "reserved-output", "free"]) {
      expect(Number(await bar.getAttribute(`data-section-${s}`)), s).toBeGreaterThan(0);
    }
    expect(await bar.getAttribute("data-fits")).toBe("true");
    expect(await bar.locator('[data-section="history"]').count()).toBe(1);

    expect(await page.locator('[data-testid="dropped-item"]').count()).toBeGreaterThan(0);
    // Dropped: everything but the newest 6 history messages, from the thread's first message, with the reason.
    const firstDropped = page.locator('[data-testid="dropped-item"]').first();
    expect(await firstDropped.getAttribute("data-index")).toBe("0");
    expect(await firstDropped.textContent()).toContain("#1");
    await page.getByText("older than the newest 6 messages").first().waitFor();

    // The URL carries the main selection.
    await page.waitForFunction(() => location.search.includes("strategy=message_window") && location.search.includes("conversation="));
    expect(page.url()).toContain("user=ana%40example.com");
    expect(page.url()).toContain(`conversation=${DEMO_IDS.long}`);
    await top();
    await page.screenshot({ path: screenshotPath("inspect-message-window"), fullPage: true });

    // The same shared link in dark mode runs itself.
    await dark.goto(page.url());
    await bubbles(dark).first().waitFor();
    await settled(dark);
    await top(dark);
    await dark.screenshot({ path: screenshotPath("inspect-message-window-dark"), fullPage: true });
  });

  /** A shared link of the stored 646-turn conversation: it runs itself, whatever the page showed before. */
  const storedLink = (extra: Record<string, string>) =>
    `${suite.url}/inspect?${new URLSearchParams({ user: "ana@example.com", conversation: DEMO_IDS.long, q: "what's my budget?", ...extra })}`;

  it("summary_buffer over msg_threshold 30 summarizes the older history", async () => {
    await page.goto(storedLink({ strategy: "summary_buffer", "a.msg_threshold": "30" }));
    await page.locator('[data-testid="transformed-item"][data-action="summarized"]').first().waitFor();
    await settled();
    expect(await page.locator('[data-testid="prompt-bubble"]').filter({ hasText: "summary of the earlier conversation" }).count()).toBe(1);
    await page.waitForFunction(() => location.search.includes("strategy=summary_buffer"));
    await top();
    await page.screenshot({ path: screenshotPath("inspect-summary-buffer"), fullPage: true });
  });

  it("compares token_buffer with message_window side by side", async () => {
    await page.goto(storedLink({ strategy: "token_buffer", "a.max_token_limit": "800" }));
    await page.locator('[data-testid="compare-toggle"]').click();
    await page.locator('[data-testid="strategy-select-b"]').selectOption("message_window");
    await page.locator('[data-testid="strategy-b-field-max_attached_message_count"]').fill("4");
    await run();

    const colA = page.locator('[data-testid="compare-column-a"]');
    const colB = page.locator('[data-testid="compare-column-b"]');
    await colA.locator('[data-testid="prompt-bubble"]').first().waitFor();
    await colB.locator('[data-testid="prompt-bubble"]').first().waitFor();
    await page.locator('[data-testid="compare-summary"]').waitFor();
    await settled();
    const onlyA = await colA.locator('[data-testid="prompt-bubble"][data-diff="only"]').count();
    const onlyB = await colB.locator('[data-testid="prompt-bubble"][data-diff="only"]').count();
    expect(onlyA + onlyB).toBeGreaterThan(0);
    expect(Number(await page.locator('[data-testid="only-a-count"]').textContent())).toBe(onlyA);
    expect(await colA.locator('[data-testid="diff-only"]').first().textContent()).toMatch(/only in A/i);
    // The shared messages (system with memories, the query) are in both.
    expect(await colA.locator('[data-testid="prompt-bubble"][data-diff="both"]').count()).toBeGreaterThan(0);
    // The delta is B's total minus A's, as the API counts them for the same request.
    const delta = Number(await page.locator('[data-testid="token-delta"]').getAttribute("data-delta"));
    const total = async (strategy: object) => {
      const res = await fetch(`${suite.url}/api/v1/context`, {
        method: "POST",
        headers: { "content-type": "application/json", ...suite.project.headers },
        body: JSON.stringify({ user_id: "ana@example.com", conversation_id: DEMO_IDS.long, query: "what's my budget?", strategy, memory: { dry_run: true } }),
      });
      return ((await res.json()) as { sections: { total: number } }).sections.total;
    };
    const [ta, tb] = await Promise.all([total({ type: "token_buffer", max_token_limit: 800 }), total({ type: "message_window", max_attached_message_count: 4 })]);
    expect(ta).not.toBe(tb);
    expect(delta).toBe(tb - ta);
    await page.waitForFunction(() => location.search.includes("compare=message_window"));
    await top();
    await page.screenshot({ path: screenshotPath("inspect-compare"), fullPage: true });

    // Export: the download is OpenAI messages JSON.
    const [download] = await Promise.all([page.waitForEvent("download"), colA.locator('[data-testid="export-json"]').click()]);
    const file = await download.path();
    const fs = await import("node:fs");
    const exported = JSON.parse(fs.readFileSync(file!, "utf8"));
    expect(Array.isArray(exported)).toBe(true);
    expect(exported[0].role).toBe("system");
    expect(exported.at(-1)).toEqual({ role: "user", content: "what's my budget?" });

    await dark.goto(page.url());
    await dark.locator('[data-testid="compare-column-b"] [data-testid="prompt-bubble"]').first().waitFor();
    await settled(dark);
    await dark.screenshot({ path: screenshotPath("inspect-compare-dark") });
    await page.locator('[data-testid="compare-toggle"]').click();
  });

  it("pasted messages: count 0 gives a 422 shown next to the field; then a tool call renders", async () => {
    // The inspector as first opened, not as the previous test left it.
    await page.goto(`${suite.url}/inspect`);
    await page.locator('[data-testid="inspect-empty"]').waitFor();
    await page.locator('[data-testid="inspect-source-tab-paste"]').click();
    await page.locator('[data-testid="inspect-sample"]').click();
    await page.locator('[data-testid="messages-valid"]').waitFor();
    // No user (the optional picker stays folded): this goes through /window.
    expect(await page.locator('[data-testid="inspect-user"]').inputValue()).toBe("");
    await page.locator('[data-testid="strategy-select"]').selectOption("message_window");
    const count = page.locator('[data-testid="strategy-field-max_attached_message_count"]');
    await count.fill("0");
    await run();
    await page.waitForFunction(() => document.querySelector('[data-testid="strategy-field-max_attached_message_count"]')?.getAttribute("aria-invalid") === "true");
    const err = page.locator('[data-testid="strategy-field-max_attached_message_count"] ~ [data-testid="field-error"]');
    expect(await err.textContent()).toMatch(/> 0/);
    expect(await page.locator('[data-testid="inspect-validation"]').textContent()).toContain("strategy.max_attached_message_count");
    await page.screenshot({ path: screenshotPath("inspect-paste-422") });

    await count.fill("9");
    await page.locator('[data-testid="strategy-field-system_message"]').fill("You are a concise travel assistant.");
    await run();
    await page.waitForFunction(() => !document.querySelector('[data-testid="field-error"]'));
    await bubbles().first().waitFor();
    await settled();
    expect(await page.locator('[data-testid="tool-result"]').count()).toBe(1);
    expect(await page.locator('[data-testid="tool-call"]').count()).toBe(1);
    expect(await page.locator('[data-testid="dropped-item"]').count()).toBe(4);
    expect(await page.locator('[data-testid="transformed-item"][data-action="system_inserted"]').count()).toBe(1);
    await top();
    await page.screenshot({ path: screenshotPath("inspect-paste"), fullPage: true });

    // summary_buffer with a low offload threshold offloads the long itinerary; the content loads on demand.
    await page.locator('[data-testid="strategy-select"]').selectOption("summary_buffer");
    await page.locator('[data-testid="strategy-field-msg_threshold"]').fill("5");
    await page.locator('[data-testid="strategy-field-last_keep"]').fill("4");
    await page.locator('[data-testid="strategy-field-offload_tokens"]').fill("50");
    await run();
    await page.locator('[data-testid="transformed-item"][data-action="offloaded"]').first().waitFor();
    await settled();
    const off = page.locator('[data-testid="prompt-bubble"][data-offloaded="true"]').first();
    await off.locator('[data-testid="show-offloaded"]').click();
    expect(await off.locator('[data-testid="offloaded-content"]').textContent()).toMatch(/Day \d+/);
    await top();
    await page.screenshot({ path: screenshotPath("inspect-paste-offloaded"), fullPage: true });

    // Reserving more output than the window holds: the bar says it does not fit, in red.
    await page.locator('[data-testid="model-select"]').selectOption("gpt-4");
    await page.locator('[data-testid="reserved-output"]').fill("8000");
    await run();
    await page.waitForFunction(() => document.querySelector('[data-testid="budget-stacked-bar"]')?.getAttribute("data-fits") === "false");
    await page.locator('[data-testid="budget-overflow"]').waitFor();
    await top();
    await page.screenshot({ path: screenshotPath("inspect-overflow") });

    // The same view in dark mode: paste the sample there and run the offloading strategy.
    await dark.goto(`${suite.url}/inspect?source=paste&strategy=summary_buffer`);
    await dark.locator('[data-testid="inspect-sample"]').click();
    await dark.locator('[data-testid="strategy-field-msg_threshold"]').fill("5");
    await dark.locator('[data-testid="strategy-field-last_keep"]').fill("4");
    await dark.locator('[data-testid="strategy-field-offload_tokens"]').fill("50");
    await dark.keyboard.press("Control+Enter");
    await dark.locator('[data-testid="prompt-bubble"][data-offloaded="true"]').first().waitFor();
    await settled(dark);
    await dark.screenshot({ path: screenshotPath("inspect-paste-dark") });
  });

  it("a shared link sets the strategy parameters, reserved output and memory options; edits update the link", async () => {
    const link = new URLSearchParams({
      user: "ana@example.com",
      conversation: DEMO_IDS.long,
      q: "what's my budget?",
      strategy: "message_window",
      "a.max_attached_message_count": "4",
      "a.history_message_truncate_enable": "1",
      "a.history_message_truncate_length": "120",
      compare: "summary_buffer",
      "b.msg_threshold": "-3", // invalid: the default (30) is used and the link drops it
      "b.token_ratio": "0.5",
      "b.last_keep": "4",
      model: "gpt-4.1",
      reserved: "2048",
      "m.k": "3",
      "m.format": "xml_block",
    });
    await page.goto(`${suite.url}/inspect?${link}`);
    const field = (id: string) => page.locator(`[data-testid="${id}"]`);
    expect(await field("strategy-select").inputValue()).toBe("message_window");
    expect(await field("strategy-field-max_attached_message_count").inputValue()).toBe("4");
    expect(await field("strategy-field-history_message_truncate_enable").isChecked()).toBe(true);
    expect(await field("strategy-field-history_message_truncate_length").inputValue()).toBe("120");
    expect(await field("strategy-select-b").inputValue()).toBe("summary_buffer");
    expect(await field("strategy-b-field-msg_threshold").inputValue()).toBe("30");
    expect(await field("strategy-b-field-token_ratio").inputValue()).toBe("0.5");
    expect(await field("strategy-b-field-last_keep").inputValue()).toBe("4");
    expect(await field("model-select").inputValue()).toBe("gpt-4.1");
    expect(await field("reserved-output").inputValue()).toBe("2048");
    expect(await field("memory-k").inputValue()).toBe("3");
    expect(await field("memory-format").inputValue()).toBe("xml_block");

    // The link ran itself with those values: 4 history messages in A, 2048 reserved, memories as an XML block.
    const colA = page.locator('[data-testid="compare-column-a"]');
    await colA.locator('[data-testid="prompt-bubble"]').first().waitFor();
    await page.locator('[data-testid="compare-column-b"] [data-testid="prompt-bubble"]').first().waitFor();
    await settled();
    expect(await colA.locator('[data-testid="prompt-bubble"][data-section="history"]').count()).toBe(4);
    expect(await page.locator('[data-testid="budget-stacked-bar"]').getAttribute("data-section-reserved-output")).toBe("2048");
    expect(await colA.locator('[data-testid="prompt-bubble"]').first().textContent()).toContain("<long_term_memory>");
    // The invalid value is not carried on.
    await page.waitForFunction(() => !location.search.includes("b.msg_threshold"));
    await top();
    await page.screenshot({ path: screenshotPath("inspect-shared-link"), fullPage: true });

    // Edits go back into the link; a value set back to its default leaves it.
    await field("strategy-b-field-last_keep").fill("6");
    await page.waitForFunction(() => new URLSearchParams(location.search).get("b.last_keep") === "6");
    await field("strategy-field-max_attached_message_count").fill("10");
    await field("reserved-output").fill("4096");
    await page.locator("summary", { hasText: "Long-term memory" }).click();
    await field("memory-format").selectOption("user_memory");
    await page.waitForFunction(() => {
      const q = new URLSearchParams(location.search);
      return !q.has("a.max_attached_message_count") && q.get("reserved") === "4096" && !q.has("m.format");
    });
    const q = new URL(page.url()).searchParams;
    expect(q.get("a.history_message_truncate_length")).toBe("120");
    expect(q.get("b.token_ratio")).toBe("0.5");
    expect(q.get("m.k")).toBe("3");
    expect(q.get("conversation")).toBe(DEMO_IDS.long);
  });
});
