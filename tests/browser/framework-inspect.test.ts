import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { TOOL_AGENT_DEMO_ID } from "@/lib/demo/demo-tool-agent";
import { loadScaledTimeout, screenshotPath } from "../helpers/browser";
import { writeDemoConversations } from "../helpers/browser-demo";
import { sharedBrowserSuite } from "../helpers/browser-shared";

// The framework strategies of issue 42 in the inspector: listed in the strategy menu, and their
// quirks explained in the "what changed" list, on the seeded tool-agent conversation.

const QUERY = "Is the rollout safe now?";

describe("framework strategies in the inspector", () => {
  // On the worker's shared server, in a project of the file's own holding the demo's tool-agent
  // conversation (written through the API: browser-demo.ts), signed in as the owner.
  const suite = sharedBrowserSuite("framework-inspect");
  let page: Page;

  beforeAll(async () => {
    [page] = await Promise.all([suite.signedIn(1440, 1000), writeDemoConversations(suite.api, [TOOL_AGENT_DEMO_ID])]);
    page.setDefaultTimeout(loadScaledTimeout(30_000));
  });

  const settled = () => page.waitForFunction(() => document.querySelector('section[aria-label="Result"]')?.getAttribute("aria-busy") === "false");
  const context = async (strategy: object) => {
    const res = await fetch(`${suite.url}/api/v1/context`, {
      method: "POST",
      headers: { "content-type": "application/json", ...suite.project.headers },
      body: JSON.stringify({ user_id: "sam@example.com", conversation_id: TOOL_AGENT_DEMO_ID, query: QUERY, strategy, memory: { dry_run: true } }),
    });
    expect(res.status).toBe(200);
    return (await res.json()) as { transformed: { index: number; action: string; reason: string }[] };
  };

  it("lists the four strategies and shows LangChain keeping a tool result whose call was cut", async () => {
    // The smallest window (in messages) where LangChain's "last" keeps an orphan tool result of the seeded conversation.
    let size = 0;
    for (let n = 1; n <= 12 && !size; n++) {
      const r = await context({ type: "langchain_trim", max_tokens: n, token_counter: "messages" });
      if (r.transformed.some((t) => t.action === "kept_unpaired" && t.reason === "LangChain kept this tool result although its call was cut")) size = n;
    }
    expect(size).toBeGreaterThan(0);
    const qs = new URLSearchParams({ user: "sam@example.com", conversation: TOOL_AGENT_DEMO_ID, q: QUERY, strategy: "langchain_trim", "a.max_tokens": String(size), "a.token_counter": "messages" });
    await page.goto(`${suite.url}/inspect?${qs}`);
    const select = page.locator('[data-testid="strategy-select"]');
    await select.waitFor();
    const options = await select.locator("option").evaluateAll((els) => els.map((e) => (e as HTMLOptionElement).value));
    expect(options).toEqual(expect.arrayContaining(["langchain_trim", "llamaindex_buffer", "llamaindex_memory", "mastra_last_messages"]));
    await settled();
    const item = page.locator('[data-testid="transformed-item"][data-action="kept_unpaired"]').first();
    await item.waitFor();
    const changes = page.locator('[data-testid="changes-list"]');
    expect(await changes.textContent()).toContain("LangChain kept this tool result although its call was cut");
    await changes.scrollIntoViewIfNeeded();
    await page.screenshot({ path: screenshotPath("inspect-langchain-trim-1440") });
  });

  it("shows Mastra's inserted \".\" message with its reason", async () => {
    const qs = new URLSearchParams({ user: "sam@example.com", conversation: TOOL_AGENT_DEMO_ID, q: QUERY, strategy: "mastra_last_messages", "a.last_messages": "1" });
    await page.goto(`${suite.url}/inspect?${qs}`);
    await page.locator('[data-testid="strategy-select"]').waitFor();
    await settled();
    const api = await context({ type: "mastra_last_messages", last_messages: 1 });
    const inserted = api.transformed.find((t) => t.action === "message_inserted");
    // The seeded conversation's newest stored message is a reply: one stored message means the history starts with the assistant.
    expect(inserted?.reason).toMatch(/inserted a user message "\."/);
    await page.locator('[data-testid="transformed-item"][data-action="message_inserted"]').first().waitFor();
    expect(await page.locator('[data-testid="changes-list"]').textContent()).toContain('Mastra inserted a user message "."');
  });
});
