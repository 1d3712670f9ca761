import http from "node:http";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAppServer } from "../helpers/app-server";
import { axeSeriousViolations, browserSuite, screenshotPath } from "../helpers/browser";
import { freePort } from "../helpers/free-port";

// The account flow in real Chromium against the production server: first run -> create the
// admin -> sign out -> sign in, at http://127.0.0.1 (the address `npm start` prints) and at
// http://localhost; create a key and use it; invite a viewer who reads but cannot write; a page
// on another origin cannot write with the admin's cookie. The first run has a server of its
// own; the other tests share one (demo seed) whose admin exists from the start, and each signs
// in a browser context of its own. Screenshots: test-results/screenshots/auth-*.png at 1440,
// 1024 and 390 px, each page also checked with axe-core (sign-up, sign-in, settings,
// invitation, memory pages).

const PASSWORD = "correct horse battery";
const WIDTHS = [1440, 1024, 390];
const ADMIN = "admin@example.com";

describe("accounts in a browser", () => {
  const suite = browserSuite({ seed: true, env: { MEMSCOPE_ADMIN_EMAIL: ADMIN, MEMSCOPE_ADMIN_PASSWORD: PASSWORD } });
  let evil: http.Server;
  let evilUrl = "";

  beforeAll(async () => {
    // Same site (127.0.0.1), another origin (port): the session cookie goes along, so only the Origin check stops it.
    const port = await freePort();
    evilUrl = `http://127.0.0.1:${port}`;
    evil = http.createServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/html" });
      res.end(`<!doctype html><title>evil</title><script>
        const target = ${JSON.stringify(suite.url)};
        Promise.allSettled([
          fetch(target + "/api/v1/users/victim/memories", { method: "POST", mode: "no-cors", credentials: "include", headers: { "content-type": "text/plain" }, body: JSON.stringify({ memory_type: "fact", content: "planted by evil" }) }),
          fetch(target + "/api/v1/project/keys", { method: "POST", mode: "no-cors", credentials: "include", body: JSON.stringify({ name: "stolen", scopes: ["admin"] }) }),
          fetch(target + "/api/auth/sign-out", { method: "POST", mode: "no-cors", credentials: "include", headers: { "content-type": "text/plain" }, body: "{}" }),
        ]).then(() => { document.title = "done"; });
      </script>`);
    });
    await new Promise<void>((r) => evil.listen(port, "127.0.0.1", r));
  });
  afterAll(async () => {
    evil?.close();
  });

  async function newTab(): Promise<Page> {
    const p = await (await suite.browser.newContext({ viewport: { width: 1440, height: 900 } })).newPage();
    p.setDefaultTimeout(20_000);
    return p;
  }

  /** A browser context of its own, signed in as the admin (through the API, as the form would). */
  async function adminTab(): Promise<Page> {
    const p = await newTab();
    const r = await p.context().request.post(`${suite.url}/api/auth/sign-in/email`, {
      data: { email: ADMIN, password: PASSWORD },
      headers: { origin: suite.url },
    });
    expect(r.status()).toBe(200);
    return p;
  }

  /** Screenshots at every width, and no serious or critical axe-core violation on the page. */
  async function shots(name: string, p: Page) {
    for (const w of WIDTHS) {
      await p.setViewportSize({ width: w, height: 900 });
      await p.screenshot({ path: screenshotPath(`auth-${name}-${w}`), fullPage: true });
    }
    await p.setViewportSize({ width: 1440, height: 900 });
    const violations = (await axeSeriousViolations(p)).map((v) => `${v.impact} ${v.id} at ${v.targets.join(" | ")}`);
    expect(violations, `axe on ${name}`).toEqual([]);
  }

  it("first run at http://127.0.0.1: the banner's link creates the admin, who signs out and in again", async () => {
    const first = await startAppServer({ seed: true });
    const page = await newTab();
    try {
      // Step 1: open to this machine; the admin is made from the banner's link.
      await page.goto(`${first.url}/conversations`);
      const banner = page.getByRole("status").filter({ hasText: "Open to this machine only" });
      await expect(banner.textContent()).resolves.toContain("Create an admin account to share it");
      await banner.getByRole("link", { name: "Create an admin account to share it" }).click();
      await page.getByLabel("Email").fill(ADMIN);
      await page.getByLabel("Password (10 characters or more)").fill("short");
      await page.getByRole("button", { name: "Create admin account" }).click();
      await page.getByText("The password needs 10 to 128 characters").waitFor();
      await shots("first-admin", page);
      await page.getByLabel("Password (10 characters or more)").fill(PASSWORD);
      await page.getByRole("button", { name: "Create admin account" }).click();
      await page.waitForURL(/\/settings$/);
      await page.getByText(`Signed in as ${ADMIN}`).waitFor();
      expect(await page.getByText("Open to this machine only").count()).toBe(0);

      // Step 2: sign out (this answered 403 "Invalid origin" at 127.0.0.1), pages need sign-in.
      await page.getByRole("button", { name: "Sign out" }).click();
      await page.waitForURL(/\/sign-in/);
      await page.goto(`${first.url}/memories`);
      await page.waitForURL(/\/sign-in\?next=%2Fmemories/);

      // Step 3: a wrong password is said so; the right one signs in.
      await page.getByLabel("Email").fill(ADMIN);
      await page.getByLabel("Password").fill("wrong password!!");
      await page.getByRole("button", { name: "Sign in" }).click();
      // better-auth's own message, shown in the form's alert (Next's route announcer is an alert too).
      await page.getByRole("alert").filter({ hasText: /invalid email or password/i }).waitFor();
      await shots("sign-in-error", page);
      await page.getByLabel("Password").fill(PASSWORD);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.waitForURL(/\/memories/);
      await page.goto(`${first.url}/conversations`);
      await page.getByText("Project").first().waitFor();
      expect(await page.getByLabel("Project").inputValue()).toBe("default");
    } finally {
      await page.context().close();
      await first.stop();
    }
  });

  it("signs in and out at http://localhost as well", async () => {
    const origin = suite.url.replace("127.0.0.1", "localhost");
    const page = await newTab();
    await page.goto(`${origin}/sign-in?next=%2Fsettings`);
    await page.getByLabel("Email").fill(ADMIN);
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(`${origin}/settings`);
    await page.getByText(`Signed in as ${ADMIN}`).waitFor();
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL(/\/sign-in/);
    expect(new URL(page.url()).host).toBe(new URL(origin).host);
    expect(await page.evaluate(async () => (await fetch("/api/v1/project")).status)).toBe(401);
    await page.context().close();
  });

  it("creates a key shown once and uses it from outside the browser", async () => {
    const page = await adminTab();
    await page.goto(`${suite.url}/settings/keys`);
    await page.getByLabel("Name").fill("ci-reader");
    await page.getByLabel(/^write/).uncheck();
    await page.getByRole("button", { name: "Create key" }).click();
    const key = (await page.getByTestId("new-key").textContent())!.trim();
    expect(key).toMatch(/^msk_/);
    await page.getByTestId("key-row").filter({ hasText: "ci-reader" }).waitFor();
    await shots("keys", page);
    const ok = await fetch(`${suite.url}/api/v1/conversations`, { headers: { authorization: `Bearer ${key}` } });
    expect(ok.status).toBe(200);
    const no = await fetch(`${suite.url}/api/v1/users/u/memories`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ memory_type: "fact", content: "x" }),
    });
    expect(no.status).toBe(403);
    await page.reload();
    expect(await page.getByTestId("new-key").count()).toBe(0); // shown once
    await page.context().close();
  });

  it("a memory saved with a key names the key in its history and Origin", async () => {
    const page = await adminTab();
    await page.goto(`${suite.url}/settings/keys`);
    await page.getByLabel("Name").fill("travel-agent");
    await page.getByRole("button", { name: "Create key" }).click();
    const key = (await page.getByTestId("new-key").textContent())!.trim();
    const r = await fetch(`${suite.url}/api/v1/users/ana%40example.com/memories`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ memory_type: "fact", content: "Keeps a paper notebook for every trip" }),
    });
    expect(r.status).toBe(201);
    const id = (await r.json()).id;
    await page.goto(`${suite.url}/memories/${id}?user=ana%40example.com`);
    await page.waitForFunction(() => document.querySelector('[data-testid="origin-actor"]')?.textContent?.includes("API key travel-agent"));
    expect(await page.getByTestId("history-actor").first().textContent()).toBe("API key travel-agent");
    await shots("memory-by-key", page);
    await page.context().close();
  });

  it("a page on another origin cannot write with the admin's cookie, nor sign the admin out", async () => {
    const page = await adminTab();
    await page.goto(`${suite.url}/settings`);
    const before = await page.evaluate(async () => (await fetch("/api/v1/project/keys")).json());
    const p2 = await page.context().newPage();
    await p2.goto(evilUrl);
    await p2.waitForFunction(() => document.title === "done");
    await p2.close();
    const after = await page.evaluate(async () => (await fetch("/api/v1/project/keys")).json());
    expect(after.data.length).toBe(before.data.length);
    const planted = await page.evaluate(async () => (await fetch("/api/v1/users/victim/memories")).json());
    expect(planted.data).toEqual([]);
    const me = await page.evaluate(async () => (await fetch("/api/v1/project")).json());
    expect(me.actor).toMatchObject({ kind: "account", label: ADMIN });
    await page.context().close();
  });

  it("invites a viewer by link: the viewer sees data, controls are disabled, the API answers 403", async () => {
    const page = await adminTab();
    await page.goto(`${suite.url}/settings/members`);
    await page.getByLabel("Email").fill("viewer@example.com");
    await page.getByLabel("Role", { exact: true }).selectOption("viewer");
    await page.getByRole("button", { name: "Create link" }).click();
    const link = (await page.getByTestId("invite-link").textContent())!.trim();
    await shots("members", page);

    const viewer = await (await suite.browser.newContext({ viewport: { width: 1440, height: 900 } })).newPage();
    viewer.setDefaultTimeout(20_000);
    await viewer.goto(link);
    await viewer.getByText("As viewer, for viewer@example.com.").waitFor();
    await shots("invite", viewer);
    await viewer.getByLabel("Choose a password (10 characters or more)").fill(PASSWORD);
    // The link is read once: after accepting it (it is spent) nothing asks for it again.
    const invitationReads: string[] = [];
    viewer.on("request", (r) => {
      if (r.method() === "GET" && /\/api\/auth\/invitation\//.test(r.url())) invitationReads.push(r.url());
    });
    await viewer.getByRole("button", { name: "Create account and join" }).click();
    await viewer.waitForURL(/\/conversations/);
    await viewer.locator("table tbody tr, [data-testid=conversation-row]").first().waitFor();
    expect(invitationReads).toEqual([]);
    // Data pages: every control that changes data is there but disabled, with the reason.
    const writeControls = async () => {
      const controls = viewer.locator("[data-writes]");
      await controls.first().waitFor();
      const all = await controls.count();
      const enabled = await viewer.locator("[data-writes]:not([disabled])").count();
      return { all, enabled, title: await controls.first().getAttribute("title") };
    };
    expect(await writeControls()).toMatchObject({ enabled: 0, title: expect.stringContaining("Read only") });
    await viewer.goto(`${suite.url}/memories`);
    await viewer.getByTestId("memory-open").first().waitFor();
    const table = await writeControls();
    expect(table.all).toBeGreaterThan(1);
    expect(table.enabled).toBe(0);
    await viewer.getByTestId("memory-open").first().click();
    await viewer.getByTestId("detail-save").waitFor();
    expect(await writeControls()).toMatchObject({ enabled: 0 });
    // Nor can a viewer type into the editor: content, type, sliders, JSON, the relation form.
    const editable = viewer.locator(
      '[data-testid="fields-card"] :is(input, textarea, select), [data-testid="structured-card"] :is(input, textarea, select), [data-testid="relations-card"] :is(input, textarea, select)',
    );
    expect(await editable.count()).toBeGreaterThan(4);
    expect(await editable.evaluateAll((els) => els.filter((e) => !(e as HTMLInputElement).matches(":disabled")).map((e) => e.outerHTML.slice(0, 80)))).toEqual([]);
    expect(await viewer.getByTestId("read-only-note").textContent()).toMatch(/Read only: your role in this project is viewer/);
    await shots("viewer-memory", viewer);
    // Evals: no new set, no run, no saved case for a viewer; the reason on hover.
    await viewer.goto(`${suite.url}/evals`);
    const addSet = viewer.getByRole("button", { name: "Add", exact: true });
    await addSet.waitFor();
    // Disabled through their fieldset (:disabled), once the page knows the role (the empty
    // name field alone keeps Add disabled, so the field is what says it).
    await expect.poll(() => viewer.locator("#new-set").evaluate((e) => e.matches(":disabled")), { timeout: 20_000 }).toBe(true);
    expect(await addSet.evaluate((e) => e.matches(":disabled"))).toBe(true);
    expect(await viewer.locator("fieldset[data-read-only]").first().getAttribute("title")).toMatch(/Read only/);
    await viewer.goto(`${suite.url}/settings/members`);
    const roleSelect = viewer.getByLabel("Role of admin@example.com");
    await roleSelect.waitFor();
    expect(await roleSelect.isDisabled()).toBe(true);
    expect(await viewer.getByRole("button", { name: "Remove admin@example.com" }).isDisabled()).toBe(true);
    expect(await viewer.getByRole("link", { name: "API keys" }).count()).toBe(0);
    const status = await viewer.evaluate(async () => {
      const r = await fetch("/api/v1/users/u/memories", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ memory_type: "fact", content: "x" }) });
      return { status: r.status, body: await r.json() };
    });
    // The refusal names the scope as the docs do (read, write, admin).
    expect(status).toMatchObject({ status: 403, body: { error: { code: "missing_scope", message: "This needs the write scope; this key or role has: read" } } });
    await viewer.context().close();

    await page.goto(`${suite.url}/settings/audit`);
    await page.getByTestId("audit-row").filter({ hasText: "viewer@example.com" }).first().waitFor();
    await shots("audit", page);
    await page.context().close();
  });
});
