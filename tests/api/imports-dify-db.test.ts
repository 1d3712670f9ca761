import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type pg from "pg";
import { connectDify } from "@/lib/imports/dify-db";
import { UUID_NIL } from "@/lib/threads/uuid-nil";
import { apiClient } from "../helpers/api-client";
import { startAppServer, type AppServer } from "../helpers/app-server";
import { DIFY_TABLES, startDifyPostgres, withDifyClient, type DifyPostgres } from "../helpers/dify-postgres";

// Importing from Dify's own database (read-only, incremental) against a real PostgreSQL
// holding Dify's tables: a legacy conversation (null, then UUID_NIL parents), a
// regenerated answer with feedback and token usage, files, a deleted conversation and
// another app's conversation (both left alone). Then new rows arrive and only they import.

const TENANT = "aaaaaaaa-0000-4000-8000-000000000001";
const APP = "aaaaaaaa-0000-4000-8000-0000000000a1";
const OTHER_APP = "aaaaaaaa-0000-4000-8000-0000000000a2";
const USER = "aaaaaaaa-0000-4000-8000-0000000000e1";
const LEGACY = "bbbbbbbb-0000-4000-8000-000000000001";
const REGEN = "bbbbbbbb-0000-4000-8000-000000000002";
const DELETED = "bbbbbbbb-0000-4000-8000-000000000003";
const OTHER = "bbbbbbbb-0000-4000-8000-000000000004";
const NEW_CONV = "bbbbbbbb-0000-4000-8000-000000000005";
const msg = (c: number, n: number) => `cccccccc-000${c}-4000-8000-0000000000${String(n).padStart(2, "0")}`;

async function addConversation(c: pg.Client, id: string, app: string, name: string, at: string, deleted = false) {
  await c.query(
    `INSERT INTO conversations (id, app_id, mode, name, inputs, status, from_source, from_end_user_id, created_at, updated_at, is_deleted, introduction)
     VALUES ($1, $2, 'chat', $3, '{"topic": "billing"}', 'normal', 'api', $4, $5, $5, $6, 'Ask me about invoices.')`,
    [id, app, name, USER, at, deleted],
  );
}

async function addMessage(c: pg.Client, m: { id: string; conv: string; app?: string; parent: string | null; q: string; a: string; at: string; usage?: boolean }) {
  await c.query(
    `INSERT INTO messages (id, app_id, conversation_id, inputs, query, message, message_tokens, message_unit_price, answer, answer_tokens,
                           answer_unit_price, parent_message_id, provider_response_latency, total_price, currency, status, message_metadata,
                           from_source, from_end_user_id, created_at, updated_at, model_provider, model_id)
     VALUES ($1, $2, $3, '{}', $4, '[]', 120, 0.001, $5, 30, 0.002, $6, 1.25, 0.00018, 'USD', 'normal', $7, 'api', $8, $9, $9, 'openai', 'gpt-4o')`,
    [
      m.id, m.app ?? APP, m.conv, m.q, m.a, m.parent,
      m.usage ? JSON.stringify({ usage: { prompt_tokens: 120, completion_tokens: 30, total_tokens: 150, latency: 1.25 } }) : null,
      USER, m.at,
    ],
  );
}

describe("imports from Dify's database", () => {
  let dify: DifyPostgres;
  let server: AppServer;
  let api: ReturnType<typeof apiClient>;

  beforeAll(async () => {
    dify = await startDifyPostgres();
    await withDifyClient(dify.url, async (c) => {
      await c.query(DIFY_TABLES);
      await c.query(
        `INSERT INTO apps (id, tenant_id, name, mode, enable_site, enable_api, created_at) VALUES
           ($1, $3, 'Billing helper', 'chat', true, true, '2026-01-01 09:00:00'), ($2, $3, 'Other app', 'advanced-chat', true, true, '2026-01-01 08:00:00')`,
        [APP, OTHER_APP, TENANT],
      );
      await c.query(`INSERT INTO end_users (id, tenant_id, app_id, type, session_id) VALUES ($1, $2, $3, 'service_api', 'user-42')`, [USER, TENANT, APP]);
      // Legacy rows have no parent; later rows of the same conversation carry UUID_NIL.
      await addConversation(c, LEGACY, APP, "Old invoices", "2026-01-02 10:00:00");
      await addMessage(c, { id: msg(1, 1), conv: LEGACY, parent: null, q: "Where are my invoices?", a: "Under Billing.", at: "2026-01-02 10:00:00" });
      await addMessage(c, { id: msg(1, 2), conv: LEGACY, parent: null, q: "And last year's?", a: "In the archive tab.", at: "2026-01-02 10:01:00" });
      await addMessage(c, { id: msg(1, 3), conv: LEGACY, parent: UUID_NIL, q: "Can I export them?", a: "Yes, as CSV.", at: "2026-01-02 10:02:00" });
      await addMessage(c, { id: msg(1, 4), conv: LEGACY, parent: UUID_NIL, q: "As PDF?", a: "PDF too.", at: "2026-01-02 10:03:00" });
      // A regenerated answer: two children of one turn; the newer one carries feedback and a file.
      await addConversation(c, REGEN, APP, "Refund", "2026-01-03 11:00:00");
      await addMessage(c, { id: msg(2, 1), conv: REGEN, parent: UUID_NIL, q: "Here is the receipt.", a: "I see a refund of 40 EUR.", at: "2026-01-03 11:00:00", usage: true });
      await addMessage(c, { id: msg(2, 2), conv: REGEN, parent: msg(2, 1), q: "When will it arrive?", a: "Soon.", at: "2026-01-03 11:01:00" });
      await addMessage(c, { id: msg(2, 3), conv: REGEN, parent: msg(2, 1), q: "When will it arrive?", a: "Within 5 working days.", at: "2026-01-03 11:02:00" });
      await c.query(
        // Files are read in upload order (created_at); one statement would give both the same time.
        `INSERT INTO message_files (message_id, type, transfer_method, url, belongs_to, upload_file_id, created_by_role, created_by, created_at) VALUES
           ($1, 'image', 'local_file', NULL, 'user', 'dddddddd-0000-4000-8000-000000000001', 'end_user', $2, '2026-01-03 11:00:00'),
           ($1, 'image', 'remote_url', 'https://files.example.com/receipt-2.png', 'user', NULL, 'end_user', $2, '2026-01-03 11:00:01')`,
        [msg(2, 1), USER],
      );
      await c.query(
        `INSERT INTO message_feedbacks (app_id, conversation_id, message_id, rating, content, from_source, from_end_user_id) VALUES ($1, $2, $3, 'like', 'clear', 'user', $4)`,
        [APP, REGEN, msg(2, 3), USER],
      );
      // Left alone: a deleted conversation, and another app's conversation.
      await addConversation(c, DELETED, APP, "Deleted", "2026-01-04 09:00:00", true);
      await addMessage(c, { id: msg(3, 1), conv: DELETED, parent: UUID_NIL, q: "gone", a: "gone", at: "2026-01-04 09:00:00" });
      await addConversation(c, OTHER, OTHER_APP, "Other", "2026-01-04 09:00:00");
      await addMessage(c, { id: msg(4, 1), app: OTHER_APP, conv: OTHER, parent: UUID_NIL, q: "other", a: "other", at: "2026-01-04 09:00:00" });
    });
    server = await startAppServer({ env: { MEMSCOPE_DIFY_DATABASE_URL: dify.url } });
    api = apiClient(server.url);
  });
  afterAll(async () => {
    await server?.stop();
    await dify?.stop();
  });

  async function run(body: Record<string, unknown>) {
    const r = await api.post("/imports", { format: "dify-db", dify_app_id: APP, ...body });
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    const deadline = Date.now() + 60_000;
    for (;;) {
      const j = await api.get(`/imports/${r.body.id}`);
      if (j.body.status === "done" || j.body.status === "failed") return j.body;
      if (Date.now() > deadline) throw new Error("import did not finish");
      await new Promise((res) => setTimeout(res, 100));
    }
  }

  it("lists Dify's apps with their counts", async () => {
    const r = await api.get("/imports/dify-apps");
    expect(r.status).toBe(200);
    expect(r.body.configured).toBe(true);
    expect(r.body.error).toBeNull();
    expect(r.body.data).toEqual([
      { id: APP, name: "Billing helper", mode: "chat", conversations: 2, messages: 8, last_import_at: null },
      { id: OTHER_APP, name: "Other app", mode: "advanced-chat", conversations: 1, messages: 1, last_import_at: null },
    ]);
  });

  it("reads Dify's database in a read-only session", async () => {
    const c = await connectDify(dify.url);
    try {
      await expect(c.query(`UPDATE apps SET name = 'x'`)).rejects.toThrow(/read-only/);
    } finally {
      await c.end();
    }
  });

  it("an app Dify does not have is a 404 naming dify_app_id, and starts no job", async () => {
    const jobs = (await api.get("/imports")).body.data.length;
    const r = await api.post("/imports", { format: "dify-db", dify_app_id: "0b7e1f0a-0000-4000-8000-000000000000" });
    expect(r.status, JSON.stringify(r.body)).toBe(404);
    expect(r.body.error.details[0].field).toBe("dify_app_id");
    expect((await api.get("/imports")).body.data).toHaveLength(jobs);
  });

  it("a dry run counts what would come and writes nothing", async () => {
    const job = await run({ dry_run: true });
    expect(job).toMatchObject({ status: "done", dry_run: true, total: 2 });
    expect(job.counts).toEqual({ conversations: 2, turns: 7, memories: 0, skipped: 0, failed: 0 });
    expect((await api.get(`/conversations/${LEGACY}`)).status).toBe(404);
    expect((await api.get("/imports/dify-apps")).body.data[0].last_import_at).toBeNull();
  });

  it("imports the app's conversations with parents kept, branches, files, feedback, usage and the end user", async () => {
    const job = await run({});
    expect(job.counts).toEqual({ conversations: 2, turns: 7, memories: 0, skipped: 0, failed: 0 });

    const legacy = (await api.get(`/conversations/${LEGACY}`)).body;
    expect(legacy).toMatchObject({ app_id: APP, end_user_id: "user-42", name: "Old invoices", turn_count: 4 });
    const lm = (await api.get(`/conversations/${LEGACY}/messages`)).body.data;
    expect(lm.map((x: { parent_message_id: string | null }) => x.parent_message_id)).toEqual([null, null, UUID_NIL, UUID_NIL]);
    expect(lm[0].created_at).toBe("2026-01-02T10:00:00.000Z");
    // Dify's rule: from the newest row through UUID_NIL parents to the first legacy row without one.
    const lh = (await api.get(`/conversations/${LEGACY}/history?max_token_limit=100000`)).body;
    expect([...lh.thread_message_ids].sort()).toEqual([msg(1, 2), msg(1, 3), msg(1, 4)].sort());

    const regen = (await api.get(`/conversations/${REGEN}`)).body;
    expect(regen).toMatchObject({ turn_count: 3, branch_count: 2 });
    const rm = (await api.get(`/conversations/${REGEN}/messages`)).body.data;
    expect(rm.map((x: { id: string }) => x.id)).toEqual([msg(2, 1), msg(2, 2), msg(2, 3)]);
    expect(rm[0].files).toEqual([
      { type: "image", transfer_method: "local_file", url: null, upload_file_id: "dddddddd-0000-4000-8000-000000000001", belongs_to: "user" },
      { type: "image", transfer_method: "remote_url", url: "https://files.example.com/receipt-2.png", upload_file_id: null, belongs_to: "user" },
    ]);
    expect(rm[0].metadata.usage).toMatchObject({ prompt_tokens: 120, completion_tokens: 30, total_tokens: 150, currency: "USD" });
    expect(rm[0].answer_tokens).toBe(30);
    expect(rm[2].metadata.feedback).toEqual({ rating: "like", content: "clear", from_source: "user" });
    const rh = (await api.get(`/conversations/${REGEN}/history?max_token_limit=100000`)).body;
    expect([...rh.thread_message_ids].sort()).toEqual([msg(2, 1), msg(2, 3)].sort());

    expect((await api.get(`/conversations/${DELETED}`)).status).toBe(404);
    expect((await api.get(`/conversations/${OTHER}`)).status).toBe(404);
    // The cursor is the newest message read, the deleted conversation's included (passed over, not imported).
    expect((await api.get("/imports/dify-apps")).body.data[0].last_import_at).toBe("2026-01-04T09:00:00Z");
  });

  it("runs again incrementally: nothing new is nothing done; new rows import alone", async () => {
    const idle = await run({});
    expect(idle).toMatchObject({ status: "done", total: 0 });
    expect(idle.counts).toEqual({ conversations: 0, turns: 0, memories: 0, skipped: 0, failed: 0 });

    await withDifyClient(dify.url, async (c) => {
      await addMessage(c, { id: msg(2, 4), conv: REGEN, parent: msg(2, 3), q: "Thanks", a: "You're welcome.", at: "2026-01-05 08:00:00" });
      await addConversation(c, NEW_CONV, APP, "New one", "2026-01-05 09:00:00");
      await addMessage(c, { id: msg(5, 1), conv: NEW_CONV, parent: UUID_NIL, q: "Hello", a: "Hi", at: "2026-01-05 09:00:00" });
      await addMessage(c, { id: msg(5, 2), conv: NEW_CONV, parent: UUID_NIL, q: "Bye", a: "Bye", at: "2026-01-05 09:01:00" });
    });
    const job = await run({});
    expect(job.total).toBe(2);
    expect(job.counts).toEqual({ conversations: 2, turns: 3, memories: 0, skipped: 0, failed: 0 });
    expect((await api.get(`/conversations/${REGEN}`)).body).toMatchObject({ turn_count: 4, branch_count: 2 });
    expect((await api.get(`/conversations/${NEW_CONV}`)).body.turn_count).toBe(2);
    expect((await api.get("/imports/dify-apps")).body.data[0].last_import_at).toBe("2026-01-05T09:01:00Z");
  });
});
