import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient } from "../helpers/api-client";
import type { AppServer } from "../helpers/app-server";
import { openTestDatabase, type TestDatabase } from "../helpers/test-database";

// Issue 39, an auditor's findings on the embedded database, one test each: a text erasure
// scoped to a user that rewrote NULLs, what a user erasure left in the planner's statistics
// and in import job labels, probes that matched substrings of other people's values, eval
// cases the export left out, and retention reading the wrong time. Each test makes its own
// users (a fresh id per test) on one database and server.

const tag = () => randomUUID().slice(0, 8);
const DAY = 86_400_000;
const ago = (days: number) => new Date(Date.now() - days * DAY).toISOString();

describe("privacy findings of issue 39, on the embedded database", () => {
  let db: TestDatabase;
  let app: AppServer;
  let api: ReturnType<typeof apiClient>;

  beforeAll(async () => {
    db = await openTestDatabase("embedded");
    app = await db.startApp();
    api = apiClient(app.url);
  }, 240_000);
  afterAll(async () => {
    await app?.stop();
    await db?.stop();
  });

  /** SQL on the data folder: the embedded database opens only while no server has it, so the server restarts around it (its start runs ANALYZE). */
  async function inDatabase<T>(fn: (q: (sql: string, params?: unknown[]) => Promise<any[]>) => Promise<T>): Promise<T> {
    await app.stop();
    const [{ PGlite }, { vector }] = await Promise.all([import("@electric-sql/pglite"), import("@electric-sql/pglite-pgvector")]);
    const p = await PGlite.create({ dataDir: db.dataDir!, extensions: { vector } });
    try {
      return await fn(async (sql, params) => (await p.query<any>(sql, params)).rows);
    } finally {
      await p.close();
      app = await db.startApp();
      api = apiClient(app.url);
    }
  }

  const ok = (r: { status: number; body: any }, what: string, status?: number) => {
    if (status ? r.status !== status : r.status >= 300) throw new Error(`${what}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  };

  it("a text erasure scoped to a user changes only the cells that hold the string: NULLs stay NULL, the dry run lists only those columns, the receipt passes", async () => {
    const user = `nulls-${tag()}`;
    const phone = `+1 555 ${tag()}`;
    const conv = ok(await api.post("/conversations", { app_id: "a", end_user_id: user, name: "support" }), "conversation");
    ok(await api.post(`/conversations/${conv.id}/messages/batch`, { messages: [{ query: `call ${phone}`, answer: "noted" }] }), "turns");
    // Memories with and without the string; their history events have no reason (NULL) and the
    // create events no `before` (NULL); a relation without a note; a review item without reason.
    const withPhone = ok(await api.post(`/users/${user}/memories`, { memory_type: "fact", content: `Phone is ${phone}` }), "memory");
    const plain = ok(await api.post(`/users/${user}/memories`, { memory_type: "fact", content: "Likes green tea a lot" }), "memory");
    ok(await api.post(`/users/${user}/memories`, { memory_type: "fact", content: "Likes green tea a lot in the morning", dedupe_threshold: 0.3 }), "near duplicate");
    ok(await api.patch(`/memories/${plain.id}`, { content: "Likes green tea very much", version: plain.version }), "edit");
    ok(await api.post(`/memories/${withPhone.id}/relations`, { target_id: plain.id, relation_type: "supports" }), "relation");

    const nulls = `SELECT
        (SELECT count(*) FROM memory_events WHERE user_id = $1 AND reason IS NULL)::int AS event_reason,
        (SELECT count(*) FROM memory_events WHERE user_id = $1 AND before IS NULL)::int AS event_before,
        (SELECT count(*) FROM memory_events WHERE user_id = $1 AND (reason = 'null' OR before = 'null'::jsonb OR after = 'null'::jsonb))::int AS null_strings,
        (SELECT count(*) FROM memory_relations r JOIN memories m ON m.project_id = r.project_id AND m.id = r.source_id WHERE m.user_id = $1 AND r.note IS NULL)::int AS relation_note,
        (SELECT count(*) FROM memory_review_items WHERE user_id = $1 AND reason IS NULL)::int AS review_reason,
        (SELECT count(*) FROM memory_review_items WHERE user_id = $1 AND resolution IS NULL)::int AS review_resolution`;
    const before = (await inDatabase((q) => q(nulls, [user])))[0];
    expect(before.event_reason).toBeGreaterThan(2);
    expect(before.event_before).toBeGreaterThan(2);
    expect(before.relation_note).toBe(1);
    expect(before.review_resolution).toBe(1);

    const dry = ok(await api.post("/erase/text", { strings: [phone], user_id: user, dry_run: true }), "dry run");
    const columns = dry.matches.map((m: any) => `${m.table}.${m.column}`).sort();
    // Only columns that hold the string: the memory (its text, and its content key, an
    // identifier left alone), its history's snapshot, the turn.
    expect(columns).toEqual(["memories.content", "memories.content_key", "memory_events.after", "messages.query"]);
    expect(dry.matches.filter((m: any) => !m.replaced).map((m: any) => m.column)).toEqual(["content_key"]);

    const run = ok(await api.post("/erase/text", { strings: [phone], user_id: user, confirm: true }), "erasure");
    expect(run.rows).toEqual({ "memories.content": 1, "memory_events.after": 1, "messages.query": 1 });
    expect(run.receipt.probes.passed).toBe(true);
    expect(run.receipt.probes.scan.by_string).toEqual([{ probe: "erased string", matched_as: "substring", found: 0, where: [] }]);

    const after = (await inDatabase((q) => q(nulls, [user])))[0];
    expect(after).toEqual({ ...before, null_strings: 0 });
    expect(ok(await api.get(`/memories/${withPhone.id}`), "memory").content).toBe("Phone is [erased]");
    expect(ok(await api.get(`/memories/${plain.id}`), "memory").content).toBe("Likes green tea very much");
  }, 300_000);

  it("after a user erasure the planner's statistics hold none of the person's values", async () => {
    const user = `stats-${tag()}`;
    const other = `stats-other-${tag()}`;
    const title = `Trip planning with ${user}`;
    for (const [u, name] of [
      [user, title],
      [other, "a chat of someone else"],
    ]) {
      for (let i = 0; i < 3; i++) {
        const c = ok(await api.post("/conversations", { app_id: "a", end_user_id: u, name }), "conversation");
        ok(await api.post(`/conversations/${c.id}/messages/batch`, { messages: [{ query: `question ${i}`, answer: "answer" }] }), "turns");
        ok(await api.post(`/users/${u}/memories`, { memory_type: "fact", content: `Fact ${i} of ${u}` }), "memory");
      }
    }
    // Statistics with the person in them: the embedded server analyzes every table at start.
    const statsWith = (q: (sql: string, params?: unknown[]) => Promise<any[]>) =>
      q(
        `SELECT DISTINCT s.starelid::regclass::text AS t FROM pg_statistic s
          WHERE strpos(concat_ws(' ', s.stavalues1::text, s.stavalues2::text, s.stavalues3::text, s.stavalues4::text, s.stavalues5::text), $1) > 0
          ORDER BY 1`,
        [user],
      );
    // What a server's start leaves (it analyzes every table), made in the same stop that reads it:
    // a server restart fewer than a restart to analyze and another to read (about 5 CPU-seconds).
    const before = await inDatabase(async (q) => {
      await q("ANALYZE");
      return statsWith(q);
    });
    expect(before).toEqual(expect.arrayContaining([{ t: "conversations" }, { t: "memories" }]));

    const erased = ok(await api.post(`/users/${user}/erase`, { confirm: true }), "erasure");
    expect(erased.receipt.physical).toBeNull();
    expect(erased.receipt.probes.passed).toBe(true);
    // Read right away (the restart's ANALYZE comes after the read: PGlite opens the folder first).
    const [{ PGlite }, { vector }] = await Promise.all([import("@electric-sql/pglite"), import("@electric-sql/pglite-pgvector")]);
    await app.stop();
    const p = await PGlite.create({ dataDir: db.dataDir!, extensions: { vector } });
    try {
      expect(await statsWith(async (sql, params) => (await p.query<any>(sql, params)).rows)).toEqual([]);
    } finally {
      await p.close();
      app = await db.startApp();
      api = apiClient(app.url);
    }
  }, 300_000);

  it("an import job named after the person loses the id with the erasure; a re-run finishes a probe that failed", async () => {
    const user = `label-${tag()}`;
    const content = JSON.stringify({
      results: [{ id: randomUUID(), memory: "Prefers aisle seats on planes", user_id: user, created_at: ago(3), updated_at: ago(3) }],
    });
    const started = ok(await api.post("/imports", { content, file_name: `mem0-${user}.json` }), "import", 202);
    for (const deadline = Date.now() + 60_000; ; ) {
      const j = ok(await api.get(`/imports/${started.id}`), "job");
      if (j.status === "done") break;
      if (j.status === "failed" || Date.now() > deadline) throw new Error(`import ${j.status}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    // The id also in a place no erasure of the person reaches: an eval set's name.
    const set = ok(await api.post("/evals/sets", { name: `questions about ${user}` }), "eval set");

    const erased = ok(await api.post(`/users/${user}/erase`, { confirm: true }), "erasure");
    const job = ok(await api.get(`/imports/${started.id}`), "job");
    expect(job.label).toBe("mem0-[erased].json");
    expect(erased.receipt.probes.passed).toBe(false);
    expect(erased.receipt.probes.scan.by_string[0]).toEqual({
      probe: "user id",
      matched_as: "token",
      found: 1,
      where: [{ table: "eval_sets", column: "name", rows: 1 }],
    });

    // The operator clears that place; the erasure run again probes again and passes.
    ok(await api.post("/erase/text", { strings: [user], confirm: true }), "text erasure");
    const again = ok(await api.post(`/users/${user}/erase`, { confirm: true }), "re-run");
    expect(again.receipt.resumed).toBe(true);
    expect(again.receipt.total).toBe(0);
    expect(again.receipt.probes.passed).toBe(true);
    expect(again.receipt.probes.scan.by_string).toEqual([{ probe: "user id", matched_as: "token", found: 0, where: [] }]);
    // Finished: the person is unknown again.
    expect((await api.post(`/users/${user}/erase`, { confirm: true })).status).toBe(404);
    expect((await api.post(`/users/${user}/erase`, { dry_run: true })).status).toBe(404);
    expect(ok(await api.get(`/evals/sets/${set.id}`), "set").name).toBe("questions about [erased]");
  }, 300_000);

  it("the probes look for the person's id as a whole token: another person's `<id>-trunc-N` is no left-over", async () => {
    const user = `cv${tag()}`;
    const other = `other-${tag()}`;
    const c = ok(await api.post("/conversations", { app_id: "a", end_user_id: user, name: "mine" }), "conversation");
    ok(await api.post(`/conversations/${c.id}/messages/batch`, { messages: [{ query: "hello", answer: "hi" }] }), "turns");
    for (let i = 0; i < 5; i++) ok(await api.post("/conversations", { app_id: "a", end_user_id: other, name: `${user}-trunc-${i}` }), "other's conversation");
    const erased = ok(await api.post(`/users/${user}/erase`, { confirm: true }), "erasure");
    expect(erased.receipt.probes.passed).toBe(true);
    expect(erased.receipt.probes.scan.by_string[0]).toEqual({ probe: "user id", matched_as: "token", found: 0, where: [] });
  }, 300_000);

  it("the export holds the person's eval cases and their results; erase then import brings them back", async () => {
    const user = `evals-${tag()}`;
    const m = ok(await api.post(`/users/${user}/memories`, { memory_type: "fact", content: "Lives in Porto by the river" }), "memory");
    const set = ok(await api.post("/evals/sets", { name: `set ${tag()}` }), "set");
    ok(await api.post(`/evals/sets/${set.id}/cases`, { cases: [{ user_id: user, question: "Where does the user live?", expected: { memory_ids: [m.id] } }] }), "cases");
    const run = ok(await api.post(`/evals/sets/${set.id}/runs`, { config: { k: 2 } }), "run");

    const exported = ok(await api.get(`/users/${user}/export`), "export");
    expect(exported.tables.eval_cases).toHaveLength(1);
    expect(exported.tables.eval_cases[0]).toMatchObject({ user_id: user, question: "Where does the user live?", set_id: set.id });
    expect(exported.tables.eval_run_cases).toHaveLength(1);
    expect(exported.tables.eval_run_cases[0]).toMatchObject({ run_id: run.id, case_id: exported.tables.eval_cases[0].id });

    const erased = ok(await api.post(`/users/${user}/erase`, { confirm: true }), "erasure");
    expect(erased.receipt.counts).toMatchObject({ eval_cases: 1, eval_run_cases: 1 });
    expect(ok(await api.get(`/evals/runs/${run.id}/cases`), "run cases").data).toEqual([]);

    const imported = ok(await api.post("/user-imports", exported), "import", 201);
    expect(imported.counts).toMatchObject({ eval_cases: 1, eval_run_cases: 1 });
    const back = ok(await api.get(`/users/${user}/export`), "export again");
    expect(back.tables.eval_cases).toEqual(exported.tables.eval_cases);
    expect(back.tables.eval_run_cases).toEqual(exported.tables.eval_run_cases);
    expect(ok(await api.get(`/evals/runs/${run.id}/cases`), "run cases").data).toHaveLength(1);
  }, 300_000);

  it("retention's delete_conversations goes by the last turn's time, not the conversation's updated_at", async () => {
    const user = `ret-${tag()}`;
    // Turns 200 days old in a conversation updated now (a backfill), and a conversation last
    // updated 200 days ago whose turn is from today.
    const oldTurns = randomUUID();
    const newTurn = randomUUID();
    const doc = {
      format: "memscope.user-export",
      version: 1,
      user_id: user,
      exported_at: new Date().toISOString(),
      tables: {
        conversations: [
          { id: oldTurns, app_id: "ret", end_user_id: user, name: "backfilled", created_at: ago(200), updated_at: ago(0) },
          { id: newTurn, app_id: "ret", end_user_id: user, name: "stale updated_at", created_at: ago(200), updated_at: ago(200) },
        ],
        messages: [
          { id: randomUUID(), conversation_id: oldTurns, query: "old question", answer: "old answer", created_at: ago(200) },
          { id: randomUUID(), conversation_id: newTurn, query: "new question", answer: "new answer", created_at: ago(0) },
        ],
      },
    };
    ok(await api.post("/user-imports", doc), "import", 201);
    const rule = ok(await api.post("/retention/rules", { kind: "delete_conversations", days: 90 }), "rule", 201);
    const preview = ok(await api.get(`/retention/rules/${rule.id}/preview`), "preview");
    expect(preview.counts).toEqual({ conversations: 1, turns: 1 });
    expect(preview.samples.map((s: any) => s.id)).toEqual([oldTurns]);
    const run = ok(await api.post(`/retention/rules/${rule.id}/run`, {}), "run");
    expect(run.counts).toEqual({ conversations: 1, turns: 1 });
    expect((await api.get(`/conversations/${oldTurns}`)).status).toBe(404);
    expect((await api.get(`/conversations/${newTurn}`)).status).toBe(200);
    ok(await api.del(`/retention/rules/${rule.id}`), "remove rule");
  }, 300_000);
});
