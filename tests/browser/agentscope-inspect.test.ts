import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { TOOL_AGENT_DEMO_ID } from "@/lib/demo/demo-tool-agent";
import { loadScaledTimeout, screenshotPath } from "../helpers/browser";
import { writeDemoConversations } from "../helpers/browser-demo";
import { sharedBrowserSuite } from "../helpers/browser-shared";

// auto_context in the inspector: the replay of the seeded tool-agent conversation at
// AgentScope's defaults (no chat model: placeholders), its step timeline, an offloaded
// original opened, and auto_context next to summary_buffer. Each test opens its own link.

const QUERY = "Is the rollout safe now?";

describe("AgentScope auto_context in the inspector", () => {
  // On the worker's shared server, in a project of the file's own holding the demo's tool-agent
  // conversation (written through the API: browser-demo.ts), signed in as the owner.
  const suite = sharedBrowserSuite("agentscope-inspect");
  let page: Page;

  beforeAll(async () => {
    [page] = await Promise.all([suite.signedIn(1440, 1000), writeDemoConversations(suite.api, [TOOL_AGENT_DEMO_ID])]);
    page.setDefaultTimeout(loadScaledTimeout(30_000));
  });

  const link = (extra: Record<string, string>) =>
    `${suite.url}/inspect?${new URLSearchParams({ user: "sam@example.com", conversation: TOOL_AGENT_DEMO_ID, q: QUERY, ...extra })}`;
  const settled = () => page.waitForFunction(() => document.querySelector('section[aria-label="Result"]')?.getAttribute("aria-busy") === "false");
  const context = async (strategy: object) => {
    const res = await fetch(`${suite.url}/api/v1/context`, {
      method: "POST",
      headers: { "content-type": "application/json", ...suite.project.headers },
      body: JSON.stringify({ user_id: "sam@example.com", conversation_id: TOOL_AGENT_DEMO_ID, query: QUERY, strategy, memory: { dry_run: true } }),
    });
    expect(res.status).toBe(200);
    return (await res.json()) as {
      sections: { total: number };
      auto_context: { steps: { call: number; strategy: number; events: { type: string; offload_ref: string | null }[] }[]; calls: number };
    };
  };

  it("shows the step timeline of the stored tool-heavy conversation, as the API replays it", async () => {
    await page.goto(link({ strategy: "auto_context" }));
    const timeline = page.locator('[data-testid="as-timeline"]');
    await timeline.waitFor();
    await settled();
    const api = await context({ type: "auto_context" });
    expect(api.auto_context.steps.length).toBeGreaterThan(0);
    const steps = timeline.locator('[data-testid="as-step"]');
    expect(await steps.count()).toBe(api.auto_context.steps.length);
    expect(await steps.evaluateAll((els) => els.map((e) => Number(e.getAttribute("data-strategy"))))).toEqual(api.auto_context.steps.map((s) => s.strategy));
    expect(await steps.first().textContent()).toContain(`call ${api.auto_context.steps[0].call}`);
    expect(await timeline.locator('[data-testid="as-event"]').first().textContent()).toContain(api.auto_context.steps[0].events[0].type);
    expect(await page.locator('[data-testid="as-summary"]').textContent()).toContain(`Replayed ${api.auto_context.calls} model calls`);
    expect(await page.locator('[data-testid="as-summaries"]').textContent()).toContain("placeholders");
    // The prompt: the hook's system message first, the summaries as assistant messages, the query last.
    const bubbles = page.locator('[data-testid="prompt-bubble"]');
    expect(await bubbles.first().getAttribute("data-role")).toBe("system");
    expect(await bubbles.first().textContent()).toContain("context_reload");
    expect(await bubbles.last().textContent()).toContain(QUERY);
    expect(await page.locator('[data-testid="prompt-bubble"][data-offloaded="true"][data-role="assistant"]').count()).toBeGreaterThan(0);

    for (const [w, h] of [
      [1440, 1000],
      [1024, 768],
      [390, 844],
    ] as const) {
      await page.setViewportSize({ width: w, height: h });
      await timeline.scrollIntoViewIfNeeded();
      await page.screenshot({ path: screenshotPath(`inspect-agentscope-timeline-${w}`) });
    }
    await page.setViewportSize({ width: 1440, height: 1000 });
  });

  it("an offloaded original opens, as stored", async () => {
    await page.goto(link({ strategy: "auto_context" }));
    const event = page.locator('[data-testid="as-event"]').first();
    await event.waitFor();
    await settled();
    const api = await context({ type: "auto_context" });
    const ref = api.auto_context.steps[0].events[0].offload_ref!;
    const stored = (await (await fetch(`${suite.url}/api/v1/offloaded/${ref}`, { headers: suite.project.headers })).json()) as { content: string };
    await event.locator('[data-testid="show-offloaded"]').click();
    const shown = event.locator('[data-testid="offloaded-content"]');
    await shown.waitFor();
    expect(await shown.textContent()).toBe(stored.content);
    // The original is the tool run itself: calls and their results.
    const originals = JSON.parse(stored.content) as { role: string; tool_calls?: unknown[] }[];
    expect(originals[0].tool_calls?.length).toBeGreaterThan(0);
    expect(originals.slice(1).every((m) => m.role === "tool")).toBe(true);
    await event.screenshot({ path: screenshotPath("inspect-agentscope-offloaded") });
  });

  it("auto_context and summary_buffer side by side", async () => {
    await page.goto(link({ strategy: "auto_context", compare: "summary_buffer" }));
    const colA = page.locator('[data-testid="compare-column-a"]');
    const colB = page.locator('[data-testid="compare-column-b"]');
    await colA.locator('[data-testid="prompt-bubble"]').first().waitFor();
    await colB.locator('[data-testid="prompt-bubble"]').first().waitFor();
    await page.locator('[data-testid="compare-summary"]').waitFor();
    await settled();
    const [a, b] = await Promise.all([context({ type: "auto_context" }), context({ type: "summary_buffer" })]);
    // The delta is B's total minus A's as each column shows it, and what the API answers for the same
    // requests (up to the tokens of the random offload uuids, a few per tag).
    const delta = Number(await page.locator('[data-testid="token-delta"]').getAttribute("data-delta"));
    const shown = async (col: typeof colA) => Number((await col.locator('[data-testid="result-total"]').textContent())!.replace(/\D/g, ""));
    expect(delta).toBe((await shown(colB)) - (await shown(colA)));
    const tags = a.auto_context.steps.flatMap((s) => s.events).length + 10;
    expect(Math.abs(delta - (b.sections.total - a.sections.total))).toBeLessThanOrEqual(tags * 8);
    expect(Math.sign(delta)).toBe(Math.sign(b.sections.total - a.sections.total));
    // A: the hook's instruction and AgentScope's tags; B: Memscope's one summary at the top.
    expect(await colA.locator('[data-testid="prompt-bubble"]').first().textContent()).toContain("context_reload");
    expect(await colB.locator('[data-testid="prompt-bubble"]').filter({ hasText: "summary of the earlier conversation" }).count()).toBe(1);
    expect(await colB.locator('[data-testid="prompt-bubble"]').filter({ hasText: "CONTEXT_OFFLOAD" }).count()).toBe(0);
    await colA.locator("summary").first().click();
    await colA.locator('[data-testid="as-timeline"]').waitFor();
    await page.screenshot({ path: screenshotPath("inspect-agentscope-compare"), fullPage: false });
  });
});
