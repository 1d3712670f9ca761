import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll } from "vitest";
import { apiClient } from "./api-client";
import { loadScaledTimeout, reusedTab, sharedBrowser } from "./browser";
import { reportTimings, timed, timePage, timingOn } from "./browser-timing";
import { sharedProject, type SharedProject } from "./shared-app";

/**
 * A browser file on this worker's shared server (tests/helpers/shared-app.ts) in a project of its
 * own, instead of a server of its own: for a file that needs accounts on (the owner signed in)
 * and writes its own data through the API, with no demo seed and no server setting of its own.
 * A server start is about 3.5 CPU-seconds and a first load of each page on a new server compiles
 * nothing but still loads its route's modules cold; both are paid once per worker here
 * (docs/benchmarks.md section 62). The project is the file's alone, so what it lists is what it
 * wrote: another file's data on the same server is in another project, which it never sees.
 *
 * `signedIn()`: a browser context of its own with the owner's session and the file's project as
 * the current one (the project switcher's cookie), closed after the file's last test.
 */
export type SharedBrowserSuite = {
  readonly url: string;
  readonly browser: Browser;
  readonly project: SharedProject;
  /** The API as the file's project key (read, write, admin). */
  readonly api: ReturnType<typeof apiClient>;
  signedIn(width?: number, height?: number): Promise<Page>;
  /** One tab that the file's tests take in turn (reusedTab), in a signed-in context of its own. */
  readonly tab: ReturnType<typeof reusedTab>;
  /** The cookies that make a context the owner in the file's project. */
  addOwnerCookies(ctx: BrowserContext): Promise<void>;
  /**
   * A project of this attempt's own on the same server, `ctx` switched to it (its project
   * cookie, lib/auth/access.ts's PROJECT_COOKIE, replaced; the owner's session stays), with an API client bound to its key. For a
   * test that writes data with fixed ids (an import's file) and counts what it finds: a retry
   * of it starts in an empty project, not on its first attempt's rows.
   */
  attemptProject(ctx: BrowserContext, name?: string): Promise<{ project: SharedProject; api: ReturnType<typeof apiClient> }>;
};

/**
 * `demo`: the file's project filled with the demo data in beforeAll (POST /project/demo, the
 * start-up seed's own code: conversations, back-dated memories with their logged retrievals, the
 * review queue's near duplicate, a profile and its incidents), for a file that reads the demo as
 * a seeded server shows it, instead of a server of its own started on a seeded data folder.
 */
export function sharedBrowserSuite(name: string, opts: { demo?: boolean } = {}): SharedBrowserSuite {
  let project: SharedProject | undefined;
  let browser: Browser | undefined;
  let api: ReturnType<typeof apiClient> | undefined;
  let tab: ReturnType<typeof reusedTab> | undefined;
  const contexts: BrowserContext[] = [];
  beforeAll(async () => {
    const [p, b] = await timed("suite start", () => Promise.allSettled([sharedProject("embedded", name), sharedBrowser()]));
    if (p.status === "rejected") throw p.reason;
    if (b.status === "rejected") throw b.reason;
    project = p.value;
    browser = b.value;
    if (opts.demo) {
      const seeded = await timed("demo seed", () => apiClient(p.value.url, p.value.headers).post("/project/demo"));
      if (seeded.status !== 201) throw new Error(`loading the demo into ${name}'s project: ${seeded.status} ${JSON.stringify(seeded.body)}`);
    }
    if (timingOn()) {
      const page = await browser.newPage();
      timePage(page);
      await page.close();
    }
  });
  afterAll(async () => {
    await tab?.close();
    for (const c of contexts) await c.close().catch(() => {});
    reportTimings();
  });
  const started = <T>(v: T | undefined): T => {
    if (!v) throw new Error("sharedBrowserSuite: the project and browser are made in beforeAll; read them in hooks and tests");
    return v;
  };
  const addOwnerCookies = async (ctx: BrowserContext) => {
    const p = started(project);
    await ctx.addCookies(
      p.owner.cookie
        .split(/;\s*/)
        .filter(Boolean)
        .map((kv) => {
          const i = kv.indexOf("=");
          return { name: kv.slice(0, i), value: kv.slice(i + 1), url: p.url };
        }),
    );
  };
  const signedIn = async (width = 1440, height = 900) => {
    const ctx = await started(browser).newContext({ viewport: { width, height } });
    contexts.push(ctx);
    await addOwnerCookies(ctx);
    const page = await ctx.newPage();
    page.setDefaultTimeout(loadScaledTimeout(20_000));
    return page;
  };
  const attemptProject = async (ctx: BrowserContext, label = name) => {
    const p = await sharedProject("embedded", label);
    await ctx.addCookies([{ name: "memscope_project", value: encodeURIComponent(p.project), url: p.url }]);
    return { project: p, api: apiClient(p.url, p.headers) };
  };
  return {
    get url() {
      return started(project).url;
    },
    get browser() {
      return started(browser);
    },
    get project() {
      return started(project);
    },
    get api() {
      return (api ??= apiClient(started(project).url, started(project).headers));
    },
    addOwnerCookies,
    attemptProject,
    signedIn,
    get tab() {
      return (tab ??= reusedTab(started(browser), signedIn));
    },
  };
}
