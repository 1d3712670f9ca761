import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_IDS } from "@/lib/demo/demo-data";
import { DEMO_MEMORIES } from "@/lib/demo/demo-memories";
import { TOOL_AGENT_DEMO_ID } from "@/lib/demo/demo-tool-agent";
import { axeSeriousViolations, screenshotPath } from "../helpers/browser";
import { writeDemoConversationMemories, writeDemoConversations } from "../helpers/browser-demo";
import { sharedBrowserSuite } from "../helpers/browser-shared";

// Every seeded conversation's page, light and dark, at 1440 px: each kind of turn renders
// differently (regenerated siblings, a 640-turn window with dropped turns, legacy parents and an
// in-flight placeholder, image chips, tool calls and results, an archived thread, a tool-using
// agent with 88 results), so each one is checked, not one stand-in. One load per conversation:
// the colour scheme is CSS alone (prefers-color-scheme; React Flow's colorMode="system" follows
// it live), so the same tab is switched to dark and checked again. Both tabs of the right column
// (window preview, memories) are checked in each scheme. In dark mode only axe's colour rules run
// (as in pages.test.ts): the app's dark styles are colour values alone (app/globals.css's media
// queries, Tailwind's dark: colour variants, React Flow's colour mode), so the structure, names
// and roles the other rules read are those just checked in light mode. Each full run over a
// 640-turn page costs Chromium about 2 CPU-seconds beyond its colour rules (docs/benchmarks.md 37).
//
// On the worker's shared server, signed in as its owner, in a project of the file's own that
// holds the demo conversations and what their Memories tabs show (the branching one's two
// learned memories and their logged retrievals), written through the API (browser-demo.ts).
const DARK_RULES = ["color-contrast", "link-in-text-block"];

const CONVERSATIONS: { name: string; id: string }[] = [
  { name: "branching", id: DEMO_IDS.branching },
  { name: "long", id: DEMO_IDS.long },
  { name: "legacy", id: DEMO_IDS.legacy },
  { name: "images", id: DEMO_IDS.images },
  { name: "support", id: DEMO_IDS.support },
  { name: "archived", id: DEMO_IDS.archived },
  { name: "tool-agent", id: TOOL_AGENT_DEMO_ID },
];

describe("axe on every seeded conversation, light and dark", () => {
  const suite = sharedBrowserSuite("axe-seeded-conversations");
  let page: Page;

  beforeAll(async () => {
    const demo = async () => {
      await writeDemoConversations(suite.api, CONVERSATIONS.map((c) => c.id));
      await writeDemoConversationMemories(suite.api);
    };
    [page] = await Promise.all([suite.signedIn(1440, 900), demo()]);
  });
  afterAll(async () => {
    await page?.close().catch(() => {});
  });

  const describeViolations = (vs: Awaited<ReturnType<typeof axeSeriousViolations>>) => vs.map((v) => `${v.impact} ${v.id} at ${v.targets.join(" | ")}`);

  it.each(CONVERSATIONS)("$name: no serious or critical violation, window and memories tabs, light and dark", async ({ name, id }) => {
    await page.emulateMedia({ colorScheme: "light" });
    await page.goto(`${suite.url}/conversations/${id}`);
    // Everything the page draws for this conversation: the transcript with the window's verdict
    // per turn (data-state is "unknown" until the window arrives), and the tree's first view.
    await page.locator('[data-testid="transcript-turn"]').first().waitFor();
    await page.waitForFunction(() => {
      const turns = document.querySelectorAll('[data-testid="transcript-turn"]');
      return turns.length > 0 && ![...turns].some((t) => t.getAttribute("data-state") === "unknown");
    });
    await page.locator('[data-testid="tree-root"][data-fitted="true"]').waitFor();
    const found: Record<string, string[]> = {};
    for (const scheme of ["light", "dark"] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.getByTestId("tab-window").click();
      await page.locator('[data-testid="transcript-turn"]').first().waitFor();
      await page.screenshot({ path: screenshotPath(`axe-conversation-${name}-${scheme}`) });
      const rules = scheme === "dark" ? { rules: DARK_RULES } : {};
      found[`${scheme} window`] = describeViolations(await axeSeriousViolations(page, rules));
      await page.getByTestId("tab-memories").click();
      await page.getByTestId("conversation-memories").waitFor();
      if (scheme === "light") {
        // What the tab shows is what was written for this conversation: its learned memories and their retrievals.
        const learned = DEMO_MEMORIES.filter((m) => m.session === id);
        expect(await page.getByTestId("extracted-memory").count(), "memories learned in this conversation").toBe(learned.length);
        expect(await page.getByTestId("retrieval").count(), "retrievals made for this conversation").toBe(learned.reduce((n, m) => n + (m.accessCount ?? 0), 0));
      }
      found[`${scheme} memories`] = describeViolations(await axeSeriousViolations(page, rules));
    }
    expect(found).toEqual({ "light window": [], "light memories": [], "dark window": [], "dark memories": [] });
  });
});
