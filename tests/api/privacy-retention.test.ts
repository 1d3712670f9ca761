import { createHash, randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "@/lib/db/open-database";
import { apiClient } from "../helpers/api-client";
import type { AppServer } from "../helpers/app-server";
import { startOpenAiStub, type OpenAiStub } from "../helpers/openai-stub";
import { DATABASE_KINDS, openTestDatabase, type TestDatabase } from "../helpers/test-database";
import { connectPostgres } from "../helpers/real-postgres";

// Issue 24, part 4 (retention) and the as-of embedding cache of an erased user.
// - Each kind of rule: its preview (dry run) and its run agree exactly, on data whose times
//   lie far on either side of the cutoff (written through POST /user-imports, which keeps times).
// - Rules: create, change, remove; 404 for an unknown rule, 422 for a bad body, 409 while another
//   instance runs the rule (its advisory lock held, on PostgreSQL).
// - An as-of search fills the embedding cache with the user's query and past contents; the
//   user's erasure removes those rows (checked in SQL), and the same search after an import of
//   the export embeds them again (the provider is called: nothing was left in the cache).

const MODEL = "stub-embed-retention";
const DAY = 86_400_000;
const ago = (days: number) => new Date(Date.now() - days * DAY).toISOString();
const tag = () => randomUUID().slice(0, 8);
const sha = (s: string) => createHash("sha256").update(s, "utf8").digest("hex");
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type OldData = { conversation?: { daysAgo: number; turns: number }; memories: { daysAgo: number; accessedDaysAgo?: number }[] };

/** A user export document whose rows carry the given ages (POST /user-imports keeps ids and times). */
function oldUser(userId: string, d: OldData) {
  const conversations: Record<string, unknown>[] = [];
  const messages: Record<string, unknown>[] = [];
  if (d.conversation) {
    const id = randomUUID();
    const at = ago(d.conversation.daysAgo);
    conversations.push({ id, app_id: "retention-app", end_user_id: userId, name: `old chat of ${userId}`, turn_count: d.conversation.turns, created_at: at, updated_at: at });
    for (let i = 0; i < d.conversation.turns; i++) messages.push({ id: randomUUID(), conversation_id: id, query: `question ${i} of ${userId}`, answer: `answer ${i}`, created_at: at });
  }
  const memories = d.memories.map((m, i) => ({
    id: randomUUID(),
    user_id: userId,
    memory_type: "fact",
    content: `Old fact ${i} about ${userId}`,
    content_key: `old fact ${i} about ${userId.toLowerCase()}`,
    status: "active",
    created_at: ago(m.daysAgo),
    updated_at: ago(m.daysAgo),
    last_accessed_at: m.accessedDaysAgo === undefined ? null : ago(m.accessedDaysAgo),
  }));
  return { format: "memscope.user-export", version: 1, user_id: userId, exported_at: new Date().toISOString(), tables: { conversations, messages, memories } };
}

describe.each(DATABASE_KINDS)("retention rules and the erased user's embedding cache, on %s", (kind) => {
  let stub: OpenAiStub;
  let db: TestDatabase;
  let server: AppServer;
  let api: ReturnType<typeof apiClient>;

  /** SQL on the suite's database: directly on PostgreSQL; on the embedded folder with the server stopped. */
  async function inDatabase<T>(fn: (q: (text: string, params?: unknown[]) => Promise<any[]>) => Promise<T>): Promise<T> {
    if (db.kind === "embedded") await server.stop();
    const handle = await openDatabase(db.kind === "embedded" ? { kind: "pglite", dataDir: db.dataDir! } : { kind: "postgres", url: db.url! }, { migrate: false });
    try {
      return await fn((text, params) => handle.sql.query(text, params));
    } finally {
      await handle.close();
      if (db.kind === "embedded") {
        server = await db.startApp({ env: env() });
        api = apiClient(server.url);
      }
    }
  }
  const env = () => ({ MEMSCOPE_EMBEDDINGS_BASE_URL: stub.url, MEMSCOPE_EMBEDDINGS_MODEL: MODEL, MEMSCOPE_EMBEDDINGS_DIMENSIONS: "8" });

  beforeAll(async () => {
    stub = await startOpenAiStub();
    db = await openTestDatabase(kind);
    server = await db.startApp({ env: env() });
    api = apiClient(server.url);
  });
  afterAll(async () => {
    await server?.stop();
    await db?.stop();
    await stub?.stop();
  });

  it("an erased user's as-of search leaves nothing in the embedding cache", async () => {
    const user = `cache-${tag()}`;
    const m = (await api.post(`/users/${user}/memories`, { memory_type: "fact", content: `Collects ${user} stamps from Lisbon` })).body;
    await sleep(5);
    const t1 = new Date().toISOString();
    await sleep(5);
    expect((await api.patch(`/memories/${m.id}`, { version: m.version, content: `Collects coins of ${user}` })).status).toBe(200);
    // Never searched live: the query is in no retrieval log, only in the cache.
    const query = `which stamps does ${user} collect`;
    const calls = () => stub.requests.filter((r) => r.path === "/v1/embeddings").length;
    const before = calls();
    const past = await api.post(`/users/${user}/memories/search?as_of=${encodeURIComponent(t1)}`, { query, k: 5 });
    expect(past.status, JSON.stringify(past.body)).toBe(200);
    expect(calls() - before).toBe(2); // the query and the content of then
    const hashes = [sha(query), sha(`Collects ${user} stamps from Lisbon`)];
    const cached = () => inDatabase((q) => q(`SELECT content_hash FROM embedding_cache WHERE content_hash = ANY($1::text[]) ORDER BY 1`, [hashes]));
    expect((await cached()).length).toBe(2);

    const exported = (await api.get(`/users/${user}/export`)).body;
    const erased = await api.post(`/users/${user}/erase`, { confirm: true });
    expect(erased.status, JSON.stringify(erased.body)).toBe(200);
    expect(erased.body.receipt.counts.embedding_cache).toBe(2);
    expect(await cached()).toEqual([]);

    // The user back from the export: the same search embeds both texts again.
    expect((await api.post("/user-imports", exported)).status).toBe(201);
    const again = calls();
    expect((await api.post(`/users/${user}/memories/search?as_of=${encodeURIComponent(t1)}`, { query, k: 5 })).status).toBe(200);
    expect(calls() - again).toBe(2);
    expect((await api.post(`/users/${user}/erase`, { confirm: true })).status).toBe(200);
  }, 300_000);

  it("each rule's preview and run agree exactly; the run is in the audit log; a second preview finds nothing", async () => {
    const t = tag();
    const U = { old: `old-${t}`, accessed: `accessed-${t}`, convOnly: `conv-${t}`, recent: `recent-${t}`, memOnly: `mem-${t}` };
    const docs = [
      oldUser(U.old, { conversation: { daysAgo: 200, turns: 3 }, memories: [{ daysAgo: 200 }, { daysAgo: 200 }] }),
      oldUser(U.accessed, { memories: [{ daysAgo: 200 }, { daysAgo: 200 }, { daysAgo: 200, accessedDaysAgo: 10 }] }),
      oldUser(U.convOnly, { conversation: { daysAgo: 200, turns: 2 }, memories: [] }),
      oldUser(U.memOnly, { memories: [{ daysAgo: 150 }, { daysAgo: 150 }] }),
    ];
    for (const d of docs) {
      const r = await api.post("/user-imports", d);
      expect(r.status, JSON.stringify(r.body)).toBe(201);
    }
    // Recent: a memory of convOnly (the user stays active), a conversation and memory of `recent`.
    expect((await api.post(`/users/${U.convOnly}/memories`, { memory_type: "fact", content: "Recently said something" })).status).toBe(201);
    const conv = (await api.post("/conversations", { app_id: "retention-app", end_user_id: U.recent, name: "new chat" })).body;
    expect((await api.post(`/conversations/${conv.id}/messages/batch`, { messages: [{ query: "hello", answer: "hi" }] })).status).toBeLessThan(300);
    expect((await api.post(`/users/${U.recent}/memories`, { memory_type: "fact", content: "A new fact" })).status).toBe(201);

    const runRule = async (kind: string) => {
      const rule = await api.post("/retention/rules", { kind, days: 90 });
      expect(rule.status, JSON.stringify(rule.body)).toBe(201);
      expect(rule.body).toMatchObject({ kind, days: 90, enabled: false, last_runs: [] });
      const preview = await api.get(`/retention/rules/${rule.body.id}/preview`);
      expect(preview.status).toBe(200);
      const run = await api.post(`/retention/rules/${rule.body.id}/run`, {});
      expect(run.status, JSON.stringify(run.body)).toBe(200);
      expect(run.body.counts).toEqual(preview.body.counts);
      expect(run.body).toMatchObject({ rule_id: rule.body.id, trigger: "manual", complete: true });
      const after = await api.get(`/retention/rules/${rule.body.id}/preview`);
      expect(Object.values(after.body.counts).every((n) => n === 0), JSON.stringify(after.body.counts)).toBe(true);
      return { rule: rule.body, preview: preview.body, run: run.body };
    };

    // Conversations last active 200 days ago: old's and convOnly's, with their 5 turns.
    const c = await runRule("delete_conversations");
    expect(c.preview.counts).toEqual({ conversations: 2, turns: 5 });
    expect(c.preview.samples.map((s: any) => s.user_id).sort()).toEqual([U.convOnly, U.old].sort());
    expect((await api.get(`/conversations/${conv.id}`)).status).toBe(200);
    expect((await api.get(`/users/${U.old}/export`)).body.tables.conversations).toEqual([]);

    // Memories not used for 90 days: old's 2, accessed's 2 (not the one used 10 days ago), memOnly's 2.
    const a = await runRule("archive_memories");
    expect(a.preview.counts).toEqual({ memories: 6 });
    const accessed = (await api.get(`/users/${U.accessed}/memories?status=all`)).body.data;
    expect(accessed.map((m: any) => m.status).sort()).toEqual(["active", "archived", "archived"]);
    const archived = accessed.find((m: any) => m.status === "archived");
    const history = (await api.get(`/memories/${archived.id}/history`)).body.data;
    expect(history[0]).toMatchObject({ event_type: "archive", actor: "system", reason: `retention:${a.rule.id}` });

    // Inactive users: old (its memories archived, not touched since) and memOnly; accessed was
    // active 10 days ago, convOnly and recent today.
    const u = await runRule("erase_inactive_users");
    expect(u.preview.counts.users).toBe(2);
    expect(u.preview.samples.map((s: any) => s.user_id).sort()).toEqual([U.memOnly, U.old].sort());
    expect(u.run.receipts).toHaveLength(2);
    for (const gone of [U.old, U.memOnly]) expect((await api.get(`/users/${gone}/export`)).status).toBe(404);
    for (const kept of [U.accessed, U.convOnly, U.recent]) expect((await api.get(`/users/${kept}/export`)).status).toBe(200);
    const audit = (await api.get("/project/audit")).body.data;
    const receipts = audit.filter((e: any) => e.action === "user.erased" && u.run.receipts.includes(e.details.receipt_id));
    expect(receipts).toHaveLength(2);
    expect(receipts.reduce((n: number, e: any) => n + e.details.total, 0)).toBe(u.preview.counts.rows);
    const runs = audit.filter((e: any) => e.action === "retention.run");
    expect(runs.map((e: any) => [e.target, e.details.counts])).toEqual(
      expect.arrayContaining([
        [c.rule.id, c.preview.counts],
        [a.rule.id, a.preview.counts],
        [u.rule.id, u.preview.counts],
      ]),
    );
    // The rule list shows each rule's last run.
    const list = (await api.get("/retention/rules")).body.data;
    expect(list.find((r: any) => r.id === u.rule.id).last_runs[0]).toMatchObject({ run_id: u.run.run_id, counts: u.preview.counts });
    for (const r of [c.rule, a.rule, u.rule]) expect((await api.del(`/retention/rules/${r.id}`)).status).toBe(204);
  }, 600_000);

  it("rules: change, remove, 404 for an unknown rule, 422 naming the field, 409 while it runs", async () => {
    const bad = await api.post("/retention/rules", { kind: "delete_everything", days: 0 });
    expect(bad.status).toBe(422);
    expect(bad.body.error.details.map((d: any) => d.field).sort()).toEqual(["days", "kind"]);
    const rule = (await api.post("/retention/rules", { kind: "archive_memories", days: 30 })).body;
    const changed = await api.patch(`/retention/rules/${rule.id}`, { days: 60, enabled: true });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ days: 60, enabled: true });
    expect((await api.patch(`/retention/rules/${rule.id}`, {})).status).toBe(422);
    const unknown = randomUUID();
    for (const r of [
      await api.patch(`/retention/rules/${unknown}`, { days: 5 }),
      await api.del(`/retention/rules/${unknown}`),
      await api.get(`/retention/rules/${unknown}/preview`),
      await api.post(`/retention/rules/${unknown}/run`, {}),
    ]) {
      expect(r.status).toBe(404);
      expect(r.body.error.code).toBe("not_found");
    }
    // "Run now" takes no options: a body with one is a 422 naming it, and nothing runs.
    const extra = await api.post(`/retention/rules/${rule.id}/run`, { dry_run: true });
    expect(extra.status).toBe(422);
    expect(JSON.stringify(extra.body.error)).toContain("dry_run");
    // Another instance running the rule (its advisory lock held): "run now" is a 409 until it ends.
    // (pglite-socket, the stand-in without MEMSCOPE_TEST_POSTGRES_URL, has one session for all.)
    if (db.kind === "postgres" && db.real) {
      const other = await connectPostgres(db.url!);
      try {
        const [{ name }] = (await other.query(`SELECT 'retention:' || project_id || ':' || id AS name FROM retention_rules WHERE id = $1`, [rule.id])).rows;
        await other.query(`SELECT pg_advisory_lock(727280, hashtext($1))`, [name]);
        const busy = await api.post(`/retention/rules/${rule.id}/run`, {});
        expect(busy.status).toBe(409);
        expect(busy.body.error.code).toBe("retention_run_in_progress");
        await other.query(`SELECT pg_advisory_unlock(727280, hashtext($1))`, [name]);
      } finally {
        await other.end();
      }
    }
    // Several at once: each runs or is told the rule is running, nothing else.
    const statuses = (await Promise.all(Array.from({ length: 3 }, () => api.post(`/retention/rules/${rule.id}/run`, {})))).map((r) => r.status);
    expect(statuses).toContain(200);
    expect(statuses.every((s) => s === 200 || s === 409)).toBe(true);
    expect((await api.del(`/retention/rules/${rule.id}`)).status).toBe(204);
    expect((await api.get("/retention/rules")).body.data.find((r: any) => r.id === rule.id)).toBeUndefined();
  }, 300_000);
});
