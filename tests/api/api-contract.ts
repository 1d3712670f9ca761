import { randomUUID } from "node:crypto";
import { get_encoding } from "tiktoken";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { UUID_NIL } from "@/lib/threads/uuid-nil";
import { apiClient, type Res } from "../helpers/api-client";

// The API contract, run against each backend (embedded PGlite, PostgreSQL via DATABASE_URL).

type Started = { url: string; headers?: Record<string, string>; stop(): Promise<void> };

export function defineApiSuite(backend: string, kind: "pglite" | "postgres", start: () => Promise<Started>) {
  describe(`HTTP API v1 on ${backend}`, () => {
    let server: Started;
    let api: ReturnType<typeof apiClient>;
    const enc = get_encoding("o200k_base");
    const app = `app-${randomUUID().slice(0, 8)}`;

    beforeAll(async () => {
      server = await start();
      api = apiClient(server.url, server.headers);
    });
    afterAll(async () => {
      enc.free();
      await server?.stop();
    });

    const newConversation = async (extra: Record<string, unknown> = {}) => {
      const r = await api.post("/conversations", { app_id: app, end_user_id: "u1", name: "test", ...extra });
      expect(r.status).toBe(201);
      return r.body as { id: string; [k: string]: unknown };
    };

    it(`is ready on ${kind}`, async () => {
      const r = await api.get("/ready");
      expect(r.body).toEqual({ status: "ready", database: kind });
    });

    describe("conversations", () => {
      it("creates with 201 and the id at the top level, then reads it back", async () => {
        const c = await newConversation({ name: "Trip", mode: "advanced-chat", model_config: { model: "gpt-4o" } });
        expect(c.id).toMatch(/^[0-9a-f-]{36}$/);
        expect(c).toMatchObject({ app_id: app, end_user_id: "u1", name: "Trip", mode: "advanced-chat", status: "active", turn_count: 0, branch_count: 0, token_count: 0 });
        const got = await api.get(`/conversations/${c.id}`);
        expect(got.status).toBe(200);
        expect(got.body).toEqual(c);
      });

      it("keeps a given id; a duplicate id is a 409", async () => {
        const id = randomUUID();
        expect((await api.post("/conversations", { id, app_id: app })).status).toBe(201);
        const dup = await api.post("/conversations", { id, app_id: app });
        expect(dup.status).toBe(409);
        expect(dup.body.error.details[0].field).toBe("id");
      });

      it("rejects bad input with 422 naming the field, bad JSON with 400, a non-JSON body with 415", async () => {
        const r = await api.post("/conversations", { name: "no app" });
        expect(r.status).toBe(422);
        expect(r.body.error).toMatchObject({ code: "validation_error" });
        expect(r.body.error.details.map((d: { field: string }) => d.field)).toContain("app_id");
        const bad = await api.post("/conversations", { app_id: app, status: "deleted" });
        expect(bad.status).toBe(422);
        expect(bad.body.error.details[0].field).toBe("status");
        const extra = await api.post("/conversations", { app_id: app, surprise: 1 });
        expect(extra.status).toBe(422);
        const json = await api.raw("POST", "/conversations", "{not json");
        expect(json.status).toBe(400);
        expect(json.body.error.code).toBe("invalid_json");
        // A form or text/plain body (what a cross-site page sends without a preflight) is a 415.
        const plain = await fetch(`${server.url}/api/v1/conversations`, { method: "POST", headers: { ...server.headers, "content-type": "text/plain" }, body: JSON.stringify({ app_id: app }) });
        expect(plain.status).toBe(415);
        expect((await plain.json()).error.code).toBe("unsupported_media_type");
      });

      it("lists with filters and cursor pagination, newest activity first, no duplicates", async () => {
        const user = `pager-${randomUUID().slice(0, 6)}`;
        const made: string[] = [];
        for (let i = 0; i < 5; i++) made.push((await newConversation({ end_user_id: user, name: `page ${i}` })).id);
        const seen: string[] = [];
        let cursor: string | null = null;
        let pages = 0;
        do {
          const r: Res = await api.get(`/conversations?user_id=${user}&limit=2${cursor ? `&cursor=${cursor}` : ""}`);
          expect(r.status).toBe(200);
          expect(r.body.data.length).toBeLessThanOrEqual(2);
          seen.push(...r.body.data.map((c: { id: string }) => c.id));
          cursor = r.body.next_cursor;
          pages++;
        } while (cursor && pages < 10);
        expect(pages).toBe(3);
        expect(seen).toEqual([...made].reverse());

        const q = await api.get(`/conversations?q=${encodeURIComponent("page 3")}&user_id=${user}`);
        expect(q.body.data.map((c: { id: string }) => c.id)).toEqual([made[3]]);
        const garbage = await api.get(`/conversations?cursor=garbage`);
        expect(garbage.status).toBe(400);
        expect(garbage.body.error).toMatchObject({ code: "invalid_cursor", details: [{ field: "cursor" }] });
        expect((await api.get(`/conversations?limit=0`)).body.error.details[0].field).toBe("limit");
      });

      it("archives and restores; filters by status; soft-deletes", async () => {
        const c = await newConversation({ end_user_id: "arch-user" });
        const a = await api.patch(`/conversations/${c.id}`, { status: "archived" });
        expect(a.status).toBe(200);
        expect(a.body.status).toBe("archived");
        const archived = await api.get(`/conversations?app_id=${app}&status=archived`);
        expect(archived.body.data.map((x: { id: string }) => x.id)).toContain(c.id);
        const active = await api.get(`/conversations?app_id=${app}&status=active`);
        expect(active.body.data.map((x: { id: string }) => x.id)).not.toContain(c.id);
        expect((await api.patch(`/conversations/${c.id}`, { status: "active", name: "back" })).body).toMatchObject({ status: "active", name: "back" });
        expect((await api.patch(`/conversations/${c.id}`, {})).status).toBe(422);

        expect((await api.del(`/conversations/${c.id}`)).status).toBe(204);
        expect((await api.get(`/conversations/${c.id}`)).status).toBe(404);
        expect((await api.del(`/conversations/${c.id}`)).status).toBe(404);
        const all = await api.get(`/conversations?app_id=${app}&limit=200`);
        expect(all.body.data.map((x: { id: string }) => x.id)).not.toContain(c.id);
      });

      it("unknown or malformed ids are 404", async () => {
        expect((await api.get(`/conversations/${randomUUID()}`)).status).toBe(404);
        const r = await api.get(`/conversations/not-a-uuid`);
        expect(r.status).toBe(404);
        expect(r.body.error.code).toBe("not_found");
        expect((await api.post(`/conversations/${randomUUID()}/messages`, { query: "q", answer: "a" })).status).toBe(404);
      });

      it("an unknown or deleted conversation is a 404 on messages, batch, thread, history, PATCH and DELETE", async () => {
        const deleted = await newConversation();
        expect((await api.del(`/conversations/${deleted.id}`)).status).toBe(204);
        for (const id of [randomUUID(), "not-a-uuid", deleted.id]) {
          for (const r of [
            await api.get(`/conversations/${id}/messages`),
            await api.post(`/conversations/${id}/messages`, { query: "q", answer: "a" }),
            await api.post(`/conversations/${id}/messages/batch`, { messages: [{ query: "q", answer: "a" }] }),
            await api.get(`/conversations/${id}/thread`),
            await api.get(`/conversations/${id}/history`),
            await api.patch(`/conversations/${id}`, { name: "renamed" }),
            await api.del(`/conversations/${id}`),
          ]) {
            expect(r.status, JSON.stringify(r.body)).toBe(404);
            expect(r.body.error.code).toBe("not_found");
          }
        }
      });

      it("facets list the distinct apps and users of live conversations, sorted", async () => {
        const appA = `facet-a-${randomUUID().slice(0, 6)}`;
        const appB = `facet-b-${randomUUID().slice(0, 6)}`;
        const userA = `facet-user-${randomUUID().slice(0, 6)}`;
        await api.post("/conversations", { app_id: appB, end_user_id: userA });
        await api.post("/conversations", { app_id: appA, end_user_id: userA });
        await api.post("/conversations", { app_id: appA });
        const gone = await api.post("/conversations", { app_id: `facet-gone-${randomUUID().slice(0, 6)}`, end_user_id: `facet-gone-user-${randomUUID().slice(0, 6)}` });
        await api.del(`/conversations/${gone.body.id}`);
        const r = await api.get("/conversations/facets");
        expect(r.status).toBe(200);
        expect(r.body.apps).toEqual(expect.arrayContaining([appA, appB, app]));
        expect(r.body.apps.filter((a: string) => a === appA)).toHaveLength(1);
        expect(r.body.apps).not.toContain(gone.body.app_id);
        expect(r.body.users).toContain(userA);
        expect(r.body.users).not.toContain(gone.body.end_user_id);
        expect(r.body.users).not.toContain(null);
        expect(r.body.apps).toEqual([...r.body.apps].sort());
        expect(r.body.users).toEqual([...r.body.users].sort());
        expect((await api.get("/conversations/facets?x=1")).status).toBe(422);
      });
    });

    describe("messages", () => {
      it("appends under the newest turn when parent is omitted; null starts a new root; UUID_NIL is kept", async () => {
        const c = await newConversation();
        const m1 = await api.post(`/conversations/${c.id}/messages`, { query: "hello there", answer: "hi, how can I help?" });
        expect(m1.status).toBe(201);
        expect(m1.body.parent_message_id).toBeNull();
        expect(m1.body.answer_tokens).toBe(enc.encode("hi, how can I help?").length);
        expect(m1.body.tokens.o200k_base).toEqual({ query: enc.encode("hello there").length, answer: enc.encode("hi, how can I help?").length });
        const m2 = await api.post(`/conversations/${c.id}/messages`, { query: "q2", answer: "a2", answer_tokens: 99 });
        expect(m2.body.parent_message_id).toBe(m1.body.id);
        expect(m2.body.answer_tokens).toBe(99);
        const root = await api.post(`/conversations/${c.id}/messages`, { query: "fresh", answer: "start", parent_message_id: null });
        expect(root.body.parent_message_id).toBeNull();
        const nil = await api.post(`/conversations/${c.id}/messages`, { query: "legacy", answer: "row", parent_message_id: UUID_NIL });
        expect(nil.body.parent_message_id).toBe(UUID_NIL);
        expect(nil.body.tree_parent_id).toBe(root.body.id);

        const conv = (await api.get(`/conversations/${c.id}`)).body;
        expect(conv.turn_count).toBe(4);
        expect(conv.branch_count).toBe(2); // m1-m2 and root-nil
      });

      it("without a parent, a turn continues from the active leaf (the thread shown), not the newest turn, and becomes the active leaf", async () => {
        // t2a is the active leaf, t2b (another branch) the newest turn.
        const [t1, t2a, t2b] = [randomUUID(), randomUUID(), randomUUID()];
        const c = await newConversation({ model_config: { active_leaf_message_id: t2a } });
        const at = (d: number) => new Date(Date.UTC(2025, 0, d)).toISOString();
        const batch = await api.post(`/conversations/${c.id}/messages/batch`, {
          messages: [
            { id: t1, parent_message_id: null, query: "q1", answer: "a1", created_at: at(1) },
            { id: t2b, parent_message_id: t1, query: "q2, other branch", answer: "a2b", created_at: at(3) },
            { id: t2a, parent_message_id: t1, query: "q2", answer: "a2a", created_at: at(2) },
          ],
        });
        expect(batch.status, JSON.stringify(batch.body)).toBe(201);
        expect((await api.get(`/conversations/${c.id}/thread`)).body).toEqual({ leaf_message_id: t2a, message_ids: [t2a, t1] });

        const m = await api.post(`/conversations/${c.id}/messages`, { query: "q3", answer: "a3" });
        expect(m.status).toBe(201);
        expect(m.body).toMatchObject({ parent_message_id: t2a, tree_parent_id: t2a });
        expect((await api.get(`/conversations/${c.id}`)).body.model_config.active_leaf_message_id).toBe(m.body.id);
        expect((await api.get(`/conversations/${c.id}/thread`)).body).toEqual({ leaf_message_id: m.body.id, message_ids: [m.body.id, t2a, t1] });
        // The next one, and a batch's first turn, continue from there.
        const b = await api.post(`/conversations/${c.id}/messages/batch`, { messages: [{ query: "q4", answer: "a4" }, { query: "q5", answer: "a5" }] });
        expect(b.body.data.map((x: { parent_message_id: string }) => x.parent_message_id)).toEqual([m.body.id, b.body.data[0].id]);
        expect((await api.get(`/conversations/${c.id}`)).body.model_config.active_leaf_message_id).toBe(b.body.data[1].id);

        // An active leaf that names no turn of this conversation (here: another one's) is ignored.
        const d = await newConversation({ model_config: { active_leaf_message_id: t2a } });
        const d1 = await api.post(`/conversations/${d.id}/messages`, { query: "q1", answer: "a1" });
        expect(d1.status).toBe(201);
        expect(d1.body.parent_message_id).toBeNull();
      });

      it("keeps given ids, created_at, files and metadata; rejects unknown parents and reused ids", async () => {
        const c = await newConversation();
        const id = randomUUID();
        const created_at = "2024-05-01T10:00:00.000Z";
        const r = await api.post(`/conversations/${c.id}/messages`, {
          id,
          query: "look",
          answer: "nice chart",
          created_at,
          parent_message_id: null,
          metadata: { source: "dify" },
          files: [{ type: "image", transfer_method: "remote_url", url: "https://example.com/a.png" }],
        });
        expect(r.status).toBe(201);
        expect(r.body).toMatchObject({ id, created_at, metadata: { source: "dify" } });
        expect(r.body.files).toEqual([{ type: "image", transfer_method: "remote_url", url: "https://example.com/a.png", upload_file_id: null, belongs_to: "user" }]);

        const again = await api.post(`/conversations/${c.id}/messages`, { id, query: "x", answer: "y" });
        expect(again.status).toBe(409);
        const orphan = await api.post(`/conversations/${c.id}/messages`, { query: "x", answer: "y", parent_message_id: randomUUID() });
        expect(orphan.status).toBe(422);
        expect(orphan.body.error.code).toBe("parent_not_found");
        expect(orphan.body.error.details[0].field).toBe("parent_message_id");
        const badFile = await api.post(`/conversations/${c.id}/messages`, { query: "x", answer: "y", files: [{ transfer_method: "remote_url" }] });
        expect(badFile.status).toBe(422);
        expect(badFile.body.error.details[0].field).toBe("files[0]");
        expect((await api.get(`/conversations/${c.id}`)).body.turn_count).toBe(1);
      });

      it("a parent from another conversation is a 422", async () => {
        const a = await newConversation();
        const b = await newConversation();
        const m = await api.post(`/conversations/${a.id}/messages`, { query: "q", answer: "a" });
        const r = await api.post(`/conversations/${b.id}/messages`, { query: "q", answer: "a", parent_message_id: m.body.id });
        expect(r.status).toBe(422);
      });
    });

    describe("batch import", () => {
      it("imports turns in one transaction, parents anywhere in the batch, and pages them back", async () => {
        const c = await newConversation();
        const ids = Array.from({ length: 1200 }, () => randomUUID());
        const turns = ids.map((id, i) => ({
          id,
          parent_message_id: i === 0 ? "" : ids[i - 1],
          query: `question ${i}`,
          answer: `answer ${i} `.repeat(1 + (i % 5)),
          created_at: new Date(Date.UTC(2025, 0, 1) + i * 1000).toISOString(),
        }));
        // A regenerated sibling of turn 10 whose parent (turn 9) comes earlier, and a
        // turn whose parent appears later in the batch.
        const sibling = randomUUID();
        turns.push({ id: sibling, parent_message_id: ids[9], query: "question 10 again", answer: "regenerated", created_at: new Date(Date.UTC(2025, 0, 2)).toISOString() });
        const r = await api.post(`/conversations/${c.id}/messages/batch`, { messages: turns });
        expect(r.status).toBe(201);
        expect(r.body.count).toBe(1201);
        expect(r.body.data[0].parent_message_id).toBeNull(); // "" means null
        const conv = (await api.get(`/conversations/${c.id}`)).body;
        expect(conv.turn_count).toBe(1201);
        expect(conv.branch_count).toBe(2);

        const seen: string[] = [];
        let cursor: string | null = null;
        do {
          const p: Res = await api.get(`/conversations/${c.id}/messages?limit=500${cursor ? `&cursor=${cursor}` : ""}`);
          expect(p.status).toBe(200);
          seen.push(...p.body.data.map((m: { id: string }) => m.id));
          cursor = p.body.next_cursor;
        } while (cursor);
        expect(seen).toEqual([...ids, sibling]);

        const later = await newConversation();
        const [x, y] = [randomUUID(), randomUUID()];
        const fwd = await api.post(`/conversations/${later.id}/messages/batch`, {
          messages: [
            { id: x, parent_message_id: y, query: "child first", answer: "a" },
            { id: y, parent_message_id: null, query: "parent later", answer: "b" },
          ],
        });
        expect(fwd.status).toBe(201);
      });

      it("is all or nothing: one bad parent writes nothing", async () => {
        const c = await newConversation();
        const good = Array.from({ length: 50 }, (_, i) => ({ query: `q${i}`, answer: `a${i}` }));
        const bad = [...good, { query: "bad", answer: "bad", parent_message_id: randomUUID() }];
        const r = await api.post(`/conversations/${c.id}/messages/batch`, { messages: bad });
        expect(r.status).toBe(422);
        expect(r.body.error.details[0].field).toBe("messages[50].parent_message_id");
        expect((await api.get(`/conversations/${c.id}`)).body.turn_count).toBe(0);
        expect((await api.get(`/conversations/${c.id}/messages`)).body.data).toEqual([]);

        const dupId = randomUUID();
        const dup = await api.post(`/conversations/${c.id}/messages/batch`, { messages: [{ id: dupId, query: "a" }, { id: dupId, query: "b" }] });
        expect(dup.status).toBe(422);
        expect(dup.body.error.details[0].field).toBe("messages[1].id");
        const invalid = await api.post(`/conversations/${c.id}/messages/batch`, { messages: [{ query: "ok" }, { query: 5 }] });
        expect(invalid.status).toBe(422);
        expect(invalid.body.error.details[0].field).toBe("messages[1].query");
        expect((await api.get(`/conversations/${c.id}`)).body.turn_count).toBe(0);

        // An id already stored (not only repeated in the batch) is a 409, and nothing of the batch is written.
        const stored = randomUUID();
        expect((await api.post(`/conversations/${c.id}/messages`, { id: stored, query: "kept", answer: "" })).status).toBe(201);
        const reused = await api.post(`/conversations/${c.id}/messages/batch`, { messages: [{ query: "new" }, { id: stored, query: "again" }] });
        expect(reused.status, JSON.stringify(reused.body)).toBe(409);
        expect((await api.get(`/conversations/${c.id}`)).body.turn_count).toBe(1);
      });

      it("keeps missing parents as they are with allow_missing_parents", async () => {
        const c = await newConversation();
        const gone = randomUUID();
        const r = await api.post(`/conversations/${c.id}/messages/batch`, {
          allow_missing_parents: true,
          messages: [{ query: "q", answer: "a", parent_message_id: gone }],
        });
        expect(r.status).toBe(201);
        expect(r.body.data[0].parent_message_id).toBe(gone);
        expect(r.body.data[0].tree_parent_id).toBeNull();
      });

      it("return=minimal answers {id, created_at} per stored turn; the turns are stored in full", async () => {
        const c = await newConversation();
        const turns = Array.from({ length: 30 }, (_, i) => ({
          query: `minimal ${i}`,
          answer: `answer ${i}`,
          files: i === 3 ? [{ type: "image", transfer_method: "remote_url", url: "https://example.com/a.png" }] : [],
        }));
        const r = await api.post(`/conversations/${c.id}/messages/batch`, { messages: turns, return: "minimal" });
        expect(r.status, JSON.stringify(r.body)).toBe(201);
        expect(r.body.count).toBe(30);
        expect(Object.keys(r.body.data[0]).sort()).toEqual(["created_at", "id"]);
        const stored = (await api.get(`/conversations/${c.id}/messages?limit=100`)).body.data;
        expect(stored.map((m: { id: string; created_at: string }) => [m.id, m.created_at])).toEqual(r.body.data.map((d: { id: string; created_at: string }) => [d.id, d.created_at]));
        expect(stored[3].files).toHaveLength(1);
        expect(stored[29].tokens.o200k_base.query).toBeGreaterThan(0);
        expect((await api.get(`/conversations/${c.id}`)).body.turn_count).toBe(30);
        const bad = await api.post(`/conversations/${c.id}/messages/batch`, { messages: turns, return: "ids" });
        expect(bad.status).toBe(422);
        expect(bad.body.error.details[0].field).toBe("return");
      });

      it("limits: more than 10 000 turns is a 422, an oversized body a 413", async () => {
        const c = await newConversation();
        const many = await api.post(`/conversations/${c.id}/messages/batch`, { messages: Array.from({ length: 10_001 }, () => ({ query: "q" })) });
        expect(many.status).toBe(422);
        expect(many.body.error.details[0].field).toBe("messages");
        const huge = "x".repeat(26 * 1024 * 1024);
        const big = await api.raw("POST", `/conversations/${c.id}/messages/batch`, JSON.stringify({ messages: [{ query: huge }] }));
        expect(big.status).toBe(413);
        expect(big.body.error.code).toBe("payload_too_large");
        expect((await api.get(`/conversations/${c.id}`)).body.turn_count).toBe(0);
      });
    });

    describe("thread and history", () => {
      // 1 <- 2 <- 3a ; 2 <- 3b (regenerated, newer) <- 4 ; 5 placeholder on 4.
      let cid: string;
      const id = { t1: randomUUID(), t2: randomUUID(), t3a: randomUUID(), t3b: randomUUID(), t4: randomUUID(), t5: randomUUID() };
      const at = (m: number) => new Date(Date.UTC(2025, 5, 1, 12, m)).toISOString();
      beforeAll(async () => {
        cid = (await newConversation()).id;
        const r = await api.post(`/conversations/${cid}/messages/batch`, {
          messages: [
            { id: id.t1, parent_message_id: null, query: "first question about Lisbon", answer: "first answer with some detail", created_at: at(1) },
            { id: id.t2, parent_message_id: id.t1, query: "second question", answer: "second answer", created_at: at(2) },
            { id: id.t3a, parent_message_id: id.t2, query: "third question", answer: "third answer, take one", created_at: at(3) },
            { id: id.t3b, parent_message_id: id.t2, query: "third question", answer: "third answer, take two", created_at: at(4) },
            { id: id.t4, parent_message_id: id.t3b, query: "fourth question", answer: "fourth answer", created_at: at(5) },
            { id: id.t5, parent_message_id: id.t4, query: "in flight", answer: "", answer_tokens: 0, created_at: at(6) },
          ],
        });
        expect(r.status).toBe(201);
      });

      it("thread follows the newest turn by default, or any chosen leaf", async () => {
        const t = await api.get(`/conversations/${cid}/thread`);
        expect(t.body).toEqual({ leaf_message_id: id.t5, message_ids: [id.t5, id.t4, id.t3b, id.t2, id.t1] });
        const leaf = await api.get(`/conversations/${cid}/thread?leaf_message_id=${id.t3a}`);
        expect(leaf.body.message_ids).toEqual([id.t3a, id.t2, id.t1]);
        const unknown = await api.get(`/conversations/${cid}/thread?leaf_message_id=${randomUUID()}`);
        expect(unknown.status).toBe(404);
        expect(unknown.body.error.details[0].field).toBe("leaf_message_id");
      });

      it("history: placeholder left out, totals match tiktoken by the chat formula", async () => {
        const h = await api.get(`/conversations/${cid}/history?max_token_limit=2000`);
        expect(h.status).toBe(200);
        expect(h.body.placeholder_message_id).toBe(id.t5);
        expect(h.body.thread_message_ids).toEqual([id.t4, id.t3b, id.t2, id.t1]);
        expect(h.body.dropped_message_ids).toEqual([]);
        expect(h.body.messages.map((m: { content: string }) => m.content)).toEqual([
          "first question about Lisbon", "first answer with some detail", "second question", "second answer",
          "third question", "third answer, take two", "fourth question", "fourth answer",
        ]);
        let expected = 3;
        for (const m of h.body.messages) expected += 3 + enc.encode(m.role).length + enc.encode(m.content).length;
        expect(h.body.total_tokens).toBe(expected);
        expect(h.body).toMatchObject({ model: "gpt-4o", encoding: "o200k_base", approximate: false, message_limit: 500 });
        expect(h.body.formula).toContain("3 reply priming");
      });

      it("history prunes whole oldest turns; equal to the limit fits; nothing fits gives empty", async () => {
        const full = (await api.get(`/conversations/${cid}/history?max_token_limit=100000&include_turn_tokens=true`)).body;
        const turnTokens: { id: string; tokens: number }[] = full.turn_tokens;
        const newestTwo = 3 + turnTokens[0].tokens + turnTokens[1].tokens;
        const exact = (await api.get(`/conversations/${cid}/history?max_token_limit=${newestTwo}`)).body;
        expect(exact.total_tokens).toBe(newestTwo);
        expect(exact.thread_message_ids).toEqual([id.t4, id.t3b, id.t2, id.t1]);
        expect(exact.dropped_message_ids).toEqual([id.t2, id.t1]);
        const less = (await api.get(`/conversations/${cid}/history?max_token_limit=${newestTwo - 1}`)).body;
        expect(less.dropped_message_ids).toEqual([id.t3b, id.t2, id.t1]);
        const none = (await api.get(`/conversations/${cid}/history?max_token_limit=5`)).body;
        expect(none.messages).toEqual([]);
        expect(none.total_tokens).toBe(0);
      });

      it("message_limit counts rows of every branch", async () => {
        // Newest 3 rows: t5 (placeholder), t4, t3b. t3a is not among them.
        const h = (await api.get(`/conversations/${cid}/history?message_limit=3`)).body;
        expect(h.message_limit).toBe(3);
        expect(h.thread_message_ids).toEqual([id.t4, id.t3b]);
        const four = (await api.get(`/conversations/${cid}/history?message_limit=4`)).body;
        expect(four.thread_message_ids).toEqual([id.t4, id.t3b]); // row 4 is t3a, off-thread
        expect((await api.get(`/conversations/${cid}/history?message_limit=0`)).body.message_limit).toBe(500);
        expect((await api.get(`/conversations/${cid}/history?message_limit=-3`)).body.message_limit).toBe(500);
        expect((await api.get(`/conversations/${cid}/history?message_limit=9999`)).body.message_limit).toBe(500);
      });

      it("history for a chosen leaf, text format with prefixes, cl100k models", async () => {
        const h = (await api.get(`/conversations/${cid}/history?leaf_message_id=${id.t3a}&format=text&human_prefix=User&ai_prefix=Bot`)).body;
        expect(h.text).toBe(
          "User: first question about Lisbon\nBot: first answer with some detail\nUser: second question\nBot: second answer\nUser: third question\nBot: third answer, take one",
        );
        expect(h.messages).toBeUndefined();
        const cl = (await api.get(`/conversations/${cid}/history?model=gpt-3.5-turbo`)).body;
        expect(cl.encoding).toBe("cl100k_base");
        const unknown = (await api.get(`/conversations/${cid}/history?model=my-local-llama`)).body;
        expect(unknown).toMatchObject({ encoding: "o200k_base", approximate: true });
      });

      it("bad history, thread and message-list parameters are 422 naming the field", async () => {
        const thread = await api.get(`/conversations/${cid}/thread?leaf_message_id=not-a-uuid`);
        expect(thread.status).toBe(422);
        expect(thread.body.error.details[0].field).toBe("leaf_message_id");
        const list = await api.get(`/conversations/${cid}/messages?limit=0`);
        expect(list.status).toBe(422);
        expect(list.body.error.details[0].field).toBe("limit");
        const r = await api.get(`/conversations/${cid}/history?max_token_limit=lots`);
        expect(r.status).toBe(422);
        expect(r.body.error.details[0].field).toBe("max_token_limit");
        expect((await api.get(`/conversations/${cid}/history?format=xml`)).body.error.details[0].field).toBe("format");
        expect((await api.get(`/conversations/${cid}/history?nope=1`)).status).toBe(422);
      });

      it("image files become content parts before the text and count in tokens", async () => {
        const c = await newConversation();
        await api.post(`/conversations/${c.id}/messages`, {
          query: "what is this?",
          answer: "a chart",
          files: [{ type: "image", transfer_method: "local_file", upload_file_id: "up1" }],
        });
        const h = (await api.get(`/conversations/${c.id}/history`)).body;
        expect(h.messages[0].content).toEqual([
          { type: "image", transfer_method: "local_file", url: null, upload_file_id: "up1" },
          { type: "text", text: "what is this?" },
        ]);
        const text = (await api.get(`/conversations/${c.id}/history?format=text`)).body.text;
        expect(text).toBe("Human: [image]\nwhat is this?\nAssistant: a chart");
        expect(h.total_tokens).toBe(3 + 3 + 1 + 85 + enc.encode("what is this?").length + 3 + 1 + enc.encode("a chart").length);
      });
    });

    describe("model settings", () => {
      it("GET lists built-in presets; PUT replaces the saved ones, which override a built-in of the same name", async () => {
        const before = await api.get("/settings/models");
        expect(before.status).toBe(200);
        expect(before.body.data).toContainEqual(expect.objectContaining({ model: "gpt-4o", encoding: "o200k_base", source: "builtin" }));
        const saved = await api.put("/settings/models", {
          presets: [
            { model: "gpt-4o", context_window: 64000, encoding: "o200k_base", exact: true },
            { model: "local-llama", context_window: 8192, encoding: "cl100k_base" },
          ],
        });
        expect(saved.status, JSON.stringify(saved.body)).toBe(200);
        const after = await api.get("/settings/models");
        expect(after.body.data).toEqual(saved.body.data);
        expect(after.body.data).toContainEqual({ model: "local-llama", context_window: 8192, encoding: "cl100k_base", exact: false, source: "settings" });
        expect(after.body.data.filter((p: { model: string }) => p.model === "gpt-4o")).toEqual([{ model: "gpt-4o", context_window: 64000, encoding: "o200k_base", exact: true, source: "settings" }]);
        // The saved preset is what counting uses.
        const h = await api.get(`/conversations/${(await newConversation()).id}/history?model=local-llama`);
        expect(h.body).toMatchObject({ model: "local-llama", encoding: "cl100k_base" });

        for (const [body, field] of [
          [{ presets: [{ model: "m", context_window: 10, encoding: "o200k_base" }] }, "presets[0].context_window"],
          [{ presets: [{ model: "m", context_window: 4096, encoding: "p50k" }] }, "presets[0].encoding"],
          [{ presets: [{ model: "", context_window: 4096, encoding: "o200k_base" }] }, "presets[0].model"],
          [{}, "presets"],
        ] as const) {
          const bad = await api.put("/settings/models", body);
          expect(bad.status).toBe(422);
          expect(bad.body.error.details[0].field).toBe(field);
        }
        // Nothing was half-written by the refused bodies; an empty list restores the built-ins.
        expect((await api.get("/settings/models")).body.data).toEqual(saved.body.data);
        expect((await api.put("/settings/models", { presets: [] })).status).toBe(200);
        const reset = await api.get("/settings/models");
        expect(reset.body.data.filter((p: { source: string }) => p.source === "settings")).toEqual([]);
        expect(reset.body.data).toContainEqual(expect.objectContaining({ model: "gpt-4o", source: "builtin" }));
      });
    });

    describe("documentation", () => {
      it("serves an OpenAPI document generated from the schemas", async () => {
        const r = await api.get("/openapi.json");
        expect(r.status).toBe(200);
        expect(r.body.openapi).toBe("3.1.0");
        expect(Object.keys(r.body.paths)).toEqual(
          expect.arrayContaining(["/conversations", "/conversations/{id}/messages/batch", "/conversations/{id}/history"]),
        );
        const params = r.body.paths["/conversations/{id}/history"].get.parameters.map((p: { name: string }) => p.name);
        expect(params).toEqual(expect.arrayContaining(["max_token_limit", "message_limit", "leaf_message_id", "model", "format"]));
      });
    });
  });
}
