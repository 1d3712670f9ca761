import fs from "node:fs";
import path from "node:path";
import { strToU8, zipSync } from "fflate";
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import type { apiClient } from "../helpers/api-client";
import { loadScaledTimeout, screenshotPath, settled } from "../helpers/browser";
import { sharedBrowserSuite } from "../helpers/browser-shared";
import { tempDir } from "../helpers/temp-dir";

// The /import page in real Chromium against the production server: choose a file, read
// the dry-run preview (counts, first problems, nothing written), run it with the progress
// bar moving, read the summary, and run it again to see that nothing is duplicated.
// Screenshots: test-results/screenshots/import-*.png at 1440, 1024 and 390 px.
//
// On the worker's shared server, signed in as its owner (browser-shared.ts). Each test that
// imports runs in a project of its attempt's own (attemptProject): the files carry fixed ids
// (C1 below, Letta's and ChatGPT's own, stable ids of the JSONL's records) and the tests count
// what they find, so a retry in the first attempt's project would find "skipped 2" where it
// expects 2 new conversations, and fail on its own leftovers rather than on the product.

const FIXTURES = path.join(__dirname, "../fixtures/imports");
const C1 = "3f1c2a90-5b7e-4d21-9c3a-0a1b2c3d4e01";

describe("import page in a browser", () => {
  const suite = sharedBrowserSuite("import");
  let page: Page;
  let bigFile: string;
  let api: ReturnType<typeof apiClient>;
  /** A project of this attempt's own, the page's context switched to it. */
  const ownProject = async () => {
    ({ api } = await suite.attemptProject(page.context()));
  };

  beforeAll(async () => {
    page = await suite.signedIn(1440, 1000);
    page.setDefaultTimeout(loadScaledTimeout(30_000));
    // Enough conversations for the progress bar to be seen between 0 and 100 % (new
    // conversations are written 250 at a time, so progress moves chunk by chunk).
    const dir = tempDir("import-browser");
    bigFile = path.join(dir, "support-logs.jsonl");
    const turn = (i: number, k: number) => [
      { role: "user", content: `Ticket ${i}, question ${k}: my export fails with a timeout after a few minutes, what should I try?` },
      { role: "assistant", content: `Ticket ${i}, answer ${k}: retry with a smaller date range, then split the export by project if it still times out.` },
    ];
    const lines = Array.from({ length: 3000 }, (_, i) => JSON.stringify({ messages: [{ role: "system", content: "You are support." }, ...turn(i, 1), ...turn(i, 2), ...turn(i, 3)] }));
    fs.writeFileSync(bigFile, lines.join("\n"));
  });

  const text = (testId: string, p: Page = page) => p.locator(`[data-testid="${testId}"]`).innerText();
  const count = async (panel: string, name: string) => (await page.locator(`[data-testid="${panel}"] [data-testid="count-${name}"] dd`).innerText()).trim();
  const waitDone = (panel: string) =>
    page.waitForFunction((p) => {
      const el = document.querySelector(`[data-testid="${p}"]`);
      return !!el && !el.textContent!.includes("running") && el.querySelector('[role="progressbar"]')?.getAttribute("aria-valuenow") === "100";
    }, panel);

  /** The import page as first opened, at a width. */
  const openImport = async (width = 1440) => {
    await page.setViewportSize({ width, height: 1000 });
    await page.goto(`${suite.url}/import`);
    await page.getByRole("heading", { name: "Import", level: 1 }).waitFor();
  };

  // One ordered scenario, written as one test: its steps need the import before them (a run
  // of what was previewed, then the same file again).
  it("a Dify file: dry-run preview (nothing written), the run with its summary, the same file again (nothing duplicated)", async () => {
    await ownProject();
    // Step 1: the dry run: counts, first problems, nothing written.
    await openImport();
    expect(await page.getByTestId("run-button").isDisabled()).toBe(true);
    await page.getByLabel("Import file").setInputFiles(path.join(FIXTURES, "dify-api.json"));
    await page.getByText("dify-api.json").first().waitFor();
    await page.getByTestId("preview-button").click();
    await waitDone("preview-panel");

    expect(await text("preview-panel")).toContain("dry run: nothing written");
    expect(await count("preview-panel", "conversations")).toBe("2");
    expect(await count("preview-panel", "turns")).toBe("7");
    expect(await count("preview-panel", "failed")).toBe("1");
    const problems = await page.locator('[data-testid="preview-panel"] [data-testid="problems"]').innerText();
    expect(problems).toContain("conversations[2]");
    expect(problems).toContain("messages[0].created_at");
    expect(await text("summary-line")).toBe("would import: 2 conversations, 7 turns, 0 memories; skipped 0; failed 1");
    expect((await api.get(`/conversations/${C1}`)).status).toBe(404);
    await page.screenshot({ path: screenshotPath("import-preview-1440"), fullPage: true });

    // Step 2: the run, with a progress bar and a summary; the conversations exist.
    await page.getByTestId("run-button").click();
    await waitDone("run-panel");
    const panel = page.locator('[data-testid="run-panel"]');
    expect(await panel.innerText()).toContain("written");
    expect(await panel.locator('[data-testid="summary-line"]').innerText()).toBe("imported: 2 conversations, 7 turns, 0 memories; skipped 0; failed 1");
    expect(await panel.getByRole("progressbar").getAttribute("aria-valuenow")).toBe("100");
    expect((await api.get(`/conversations/${C1}`)).body).toMatchObject({ turn_count: 5, branch_count: 2 });
    await page.getByRole("link", { name: "Open conversations" }).waitFor();
    await page.screenshot({ path: screenshotPath("import-done-1440"), fullPage: true });
    for (const width of [1024, 390]) {
      await page.setViewportSize({ width, height: 1000 });
      await page.screenshot({ path: screenshotPath(`import-done-${width}`), fullPage: true });
    }
    await page.setViewportSize({ width: 1440, height: 1000 });

    // Step 3: the same file again: the preview and the run skip both conversations.
    await page.getByTestId("preview-button").click();
    await page.waitForFunction(() => document.querySelector('[data-testid="preview-panel"] [data-testid="summary-line"]')?.textContent?.includes("skipped 2"));
    await waitDone("preview-panel");
    expect(await page.locator('[data-testid="preview-panel"] [data-testid="summary-line"]').innerText()).toBe(
      "would import: 0 conversations, 0 turns, 0 memories; skipped 2; failed 1",
    );
    await page.getByTestId("run-button").click();
    await page.waitForFunction(() => document.querySelector('[data-testid="run-panel"] [data-testid="summary-line"]')?.textContent?.includes("skipped 2"));
    await waitDone("run-panel");
    expect(await page.locator('[data-testid="run-panel"] [data-testid="summary-line"]').innerText()).toBe("imported: 0 conversations, 0 turns, 0 memories; skipped 2; failed 1");
    expect((await api.get(`/conversations/${C1}`)).body.turn_count).toBe(5);
    expect(await text("recent-imports")).toContain("dify-api.json");
  });

  it("a Letta agent file as Letta writes it (issue 36): the preview names what only metadata keeps, by reason, and the run's summary says it too", async () => {
    await ownProject();
    await openImport();
    await page.getByLabel("Import file").setInputFiles(path.join(FIXTURES, "letta/scout.af"));
    await page.getByText("scout.af").first().waitFor();
    await page.getByTestId("preview-button").click();
    await waitDone("preview-panel");
    const kept = "kept only in metadata or left out: letta_event 2, letta_hidden_reasoning 1, letta_image_data 1, letta_reasoning 5, letta_summary 1";
    expect(await page.locator('[data-testid="preview-panel"] [data-testid="summary-line"]').innerText()).toBe(`would import: 2 conversations, 5 turns, 3 memories; skipped 0; failed 0; ${kept}`);
    const list = await page.locator('[data-testid="preview-panel"] [data-testid="unrepresented"]').innerText();
    expect(list).toContain("letta_summary: 1");
    expect(list).toContain("letta_reasoning: 5");
    await page.getByTestId("run-button").click();
    await waitDone("run-panel");
    expect(await page.locator('[data-testid="run-panel"] [data-testid="summary-line"]').innerText()).toBe(`imported: 2 conversations, 5 turns, 3 memories; skipped 0; failed 0; ${kept}`);
  });

  it("a ChatGPT export zip (issue 25): detected, previewed, imported with its memories, the job's progress and result; the imported conversation opens with its branches; the format list names every source", async () => {
    await ownProject();
    await openImport();
    const options = await page.getByLabel("Format").locator("option").allInnerTexts();
    expect(options).toEqual(expect.arrayContaining(["ChatGPT data export (zip or conversations.json)", "Claude.ai data export (zip or conversations.json)", "Letta agent file (.af)", "OpenAI Agents SDK session database (SQLite)", "Memory folder as zip (/memories, Claude Code MEMORY.md)", "AgentScope workspace (zip)"]));
    const zip = path.join(tempDir("import-browser-chatgpt"), "chatgpt-export.zip");
    fs.writeFileSync(zip, zipSync({ "conversations.json": new Uint8Array(fs.readFileSync(path.join(FIXTURES, "chatgpt/conversations.json"))), "chat.html": strToU8("<html></html>") }));
    await page.getByLabel("Import file").setInputFiles(zip);
    await page.getByText("chatgpt-export.zip").first().waitFor();
    await page.getByTestId("preview-button").click();
    await waitDone("preview-panel");
    expect(await text("summary-line")).toBe("would import: 3 conversations, 6 turns, 4 memories; skipped 1; failed 0");
    await page.getByTestId("run-button").click();
    await waitDone("run-panel");
    // The job: its progress (every record of the file processed), its status and counts.
    const run = page.locator('[data-testid="run-panel"]');
    expect(await run.getByRole("progressbar", { name: "Import progress" }).getAttribute("aria-valuenow")).toBe("100");
    expect(await run.innerText()).toMatch(/\b(\d+) of \1 records\b/);
    expect(await run.innerText()).toContain("done");
    expect(await run.locator('[data-testid="summary-line"]').innerText()).toBe("imported: 3 conversations, 6 turns, 4 memories; skipped 1; failed 0");
    expect((await api.get("/users/chatgpt/memories")).body.data).toHaveLength(4);
    await page.waitForFunction(() => {
      const first = document.querySelector('[data-testid="recent-imports"] li');
      return !!first && first.textContent!.includes("chatgpt-export.zip") && first.textContent!.includes("done") && first.textContent!.includes("imported: 3 conversations");
    });
    await page.screenshot({ path: screenshotPath("import-chatgpt-1440"), fullPage: true });

    // The imported conversation, reached from the page: its tree has the export's branches (a
    // regenerated first answer, an edited question: three leaves), current_node's selected.
    await page.getByRole("link", { name: "Open conversations" }).click();
    await page.getByRole("link", { name: "Trip to Kyōto 🌸" }).click();
    await page.locator('[data-testid="tree-root"][data-fitted="true"]').waitFor();
    expect(await page.locator('[data-testid="tree-node"]').count()).toBe(4);
    expect(await page.locator('[data-testid="tree-node-marker"]').count()).toBe(0);
    await page.locator('[data-testid="branch-list-toggle"]').click();
    const branches = page.locator('[data-testid="branch-item"]');
    await branches.first().waitFor();
    expect((await branches.allInnerTexts()).map((b) => b.split("\n")[0]).sort()).toEqual(["Plan a trip to Kyōto 🌸", "What temple is this?", "What temple is this? (edited)"]);
    expect(await page.locator('[data-testid="branch-item"][aria-current="true"]').innerText()).toMatch(/^What temple is this\?\n/);
    for (const width of [1440, 1024, 390]) {
      await page.setViewportSize({ width, height: 1000 });
      await settled(page, width);
      await page.screenshot({ path: screenshotPath(`import-chatgpt-conversation-${width}`) });
    }
    await page.setViewportSize({ width: 1440, height: 1000 });
  });

  it("moves the progress bar through a larger import", async () => {
    await ownProject();
    await openImport();
    await page.getByLabel("Import file").setInputFiles(bigFile);
    await page.getByText("support-logs.jsonl").first().waitFor();
    await page.getByTestId("preview-button").click();
    await waitDone("preview-panel");
    expect(await count("preview-panel", "conversations")).toBe("3000");
    // The recent list learns by itself that the preview ended.
    await page.waitForFunction(() => {
      const first = document.querySelector('[data-testid="recent-imports"] li');
      return !!first && first.textContent!.includes("support-logs.jsonl") && first.textContent!.includes("would import: 3000 conversations");
    });

    // Every value the run's progress bar takes, recorded in the page as it changes (a
    // MutationObserver; a 50 ms poll from here stood before and could miss a short step).
    await page.evaluate(() => {
      const w = window as unknown as { __progress: number[] };
      w.__progress = [];
      const read = () => {
        const v = document.querySelector('[data-testid="run-panel"] [role="progressbar"]')?.getAttribute("aria-valuenow");
        if (v != null && w.__progress.at(-1) !== Number(v)) w.__progress.push(Number(v));
      };
      new MutationObserver(read).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ["aria-valuenow"] });
    });
    await page.getByTestId("run-button").click();
    // Done: the bar at 100 % and the panel no longer running. A screenshot while it runs
    // (between 0 and 100 %), if the page is caught there before the end.
    const runDone = () =>
      document.querySelector('[data-testid="run-panel"] [role="progressbar"]')?.getAttribute("aria-valuenow") === "100" &&
      !(document.querySelector('[data-testid="run-panel"]') as HTMLElement).innerText.includes("running");
    const midwayOrDone = () =>
      (window as unknown as { __progress: number[] }).__progress.some((v) => v > 0 && v < 100) ||
      (document.querySelector('[data-testid="run-panel"] [role="progressbar"]')?.getAttribute("aria-valuenow") === "100" &&
        !(document.querySelector('[data-testid="run-panel"]') as HTMLElement).innerText.includes("running"));
    await page.waitForFunction(midwayOrDone, undefined, { timeout: 170_000 });
    if (!(await page.evaluate(runDone))) await page.screenshot({ path: screenshotPath("import-running-1440"), fullPage: true });
    await page.waitForFunction(runDone, undefined, { timeout: 170_000 });
    const seen = await page.evaluate(() => (window as unknown as { __progress: number[] }).__progress);
    expect(seen.some((v) => v > 0 && v < 100), `progress values seen: ${seen.join(", ")}`).toBe(true);
    expect(await page.locator('[data-testid="run-panel"] [data-testid="summary-line"]').innerText()).toBe(
      "imported: 3000 conversations, 9000 turns, 0 memories; skipped 0; failed 0",
    );
    // And that the run ended: its row in the recent list says done, with its summary, without a reload.
    await page.waitForFunction(() => {
      const first = document.querySelector('[data-testid="recent-imports"] li');
      return !!first && first.textContent!.includes("done") && first.textContent!.includes("imported: 3000 conversations, 9000 turns");
    });
  }, 180_000);

  it("says at 390 px when no Dify database is configured", async () => {
    await openImport(390);
    await page.getByTestId("source-dify database").click();
    await page.getByTestId("dify-not-configured").waitFor();
    expect(await text("dify-not-configured")).toContain("MEMSCOPE_DIFY_DATABASE_URL");
    await page.screenshot({ path: screenshotPath("import-dify-390"), fullPage: true });
  });
});
