import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient } from "../helpers/api-client";
import type { AppServer } from "../helpers/app-server";
import { openTestDatabase, type TestDatabase } from "../helpers/test-database";

// Issue 24, part 4: two instances on one PostgreSQL database run a due retention rule once.
// Both check for due rules every 200 ms; the run claims the rule (next_run_at a day on) under
// its advisory lock, so the other instance finds it running, then no longer due.

const DAY = 86_400_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("retention on two instances of one PostgreSQL database", () => {
  let db: TestDatabase;
  const servers: AppServer[] = [];
  beforeAll(async () => {
    db = await openTestDatabase("postgres");
    const env = { MEMSCOPE_RETENTION_CHECK_MS: "200" };
    // Both start at once on the empty database, as a first rollout of two instances would
    // (migrations, the session secret). The hook's time-out is the config's: longer than a
    // start's own deadline, so a start that hangs reports its server's log.
    servers.push(...(await Promise.all([db.startApp({ env }), db.startApp({ env })])));
  });
  afterAll(async () => {
    for (const s of servers) await s.stop().catch(() => {});
    await db?.stop();
  });

  it("a due rule runs once, on one of them, and is due again a day later", async () => {
    const [a, b] = servers.map((s) => apiClient(s.url));
    // 40 conversations last active 100 days ago, of 4 users (their times kept by the import).
    const at = new Date(Date.now() - 100 * DAY).toISOString();
    for (let u = 0; u < 4; u++) {
      const user = `two-${u}-${randomUUID().slice(0, 6)}`;
      const conversations = Array.from({ length: 10 }, (_, i) => ({ id: randomUUID(), app_id: "app", end_user_id: user, name: `c${i}`, created_at: at, updated_at: at }));
      const messages = conversations.map((c) => ({ id: randomUUID(), conversation_id: c.id, query: "q", answer: "a", created_at: at }));
      const r = await a.post("/user-imports", { format: "memscope.user-export", version: 1, user_id: user, exported_at: at, tables: { conversations, messages } });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
    }
    const rule = await b.post("/retention/rules", { kind: "delete_conversations", days: 30, enabled: true });
    expect(rule.status).toBe(201);
    const id = rule.body.id;

    const runs = async () => (await a.get("/project/audit")).body.data.filter((e: any) => e.action === "retention.run" && e.target === id);
    const deadline = Date.now() + 60_000;
    while (!(await runs()).length) {
      if (Date.now() > deadline) throw new Error(`no run within 60 s:\n${servers.map((s) => s.logs()).join("\n")}`);
      await sleep(200);
    }
    // Many more checks of both instances.
    await sleep(3_000);
    const done = await runs();
    expect(done).toHaveLength(1);
    expect(done[0].details).toMatchObject({ trigger: "schedule", counts: { conversations: 40, turns: 40 }, complete: true });
    expect(servers.filter((s) => s.logs().includes(`retention rule ${id}`))).toHaveLength(1);
    const after = (await b.get("/retention/rules")).body.data.find((r: any) => r.id === id);
    expect(Date.parse(after.next_run_at) - Date.now()).toBeGreaterThan(DAY - 60_000);
    expect(after.last_runs).toHaveLength(1);
    expect((await a.get(`/retention/rules/${id}/preview`)).body.counts).toEqual({ conversations: 0, turns: 0 });
  }, 300_000);
});
