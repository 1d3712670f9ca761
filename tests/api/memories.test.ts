import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient, type Res } from "../helpers/api-client";
import { sharedProject, type SharedProject } from "../helpers/shared-app";
import { DATABASE_KINDS, itOnOneKind } from "../helpers/test-database";

// Long-term memories through real HTTP (lexical embedder), on the embedded database and
// on PostgreSQL through DATABASE_URL.

describe.each(DATABASE_KINDS)("memories API on %s", (kind) => {
  // Refusals decided before any write, scopes and the OpenAPI text run on one kind (the rule is in
  // tests/helpers/test-database.ts); the rest, on both.
  const oneKind = itOnOneKind(kind);
  let server: SharedProject;
  let api: ReturnType<typeof apiClient>;
  beforeAll(async () => {
    server = await sharedProject(kind, "memories");
    api = apiClient(server.url, server.headers);
  });
  afterAll(async () => server?.stop());

  const user = () => `user-${randomUUID().slice(0, 8)}`;
  const save = async (u: string, body: Record<string, unknown>) => {
    const r = await api.post(`/users/${encodeURIComponent(u)}/memories`, body);
    expect([200, 201]).toContain(r.status);
    return r.body;
  };

  describe("save with dedupe", () => {
    it("creates a memory with defaults and reports dedupe 'created'", async () => {
      const u = user();
      const r = await api.post(`/users/${u}/memories`, { memory_type: "preference", content: "Prefers dark mode in every editor" });
      expect(r.status).toBe(201);
      expect(r.body).toMatchObject({
        user_id: u,
        memory_type: "preference",
        content: "Prefers dark mode in every editor",
        importance_score: 0.5,
        access_count: 0,
        last_accessed_at: null,
        status: "active",
        version: 1,
        dedupe: { action: "created" },
      });
      expect(r.body.id).toMatch(/^[0-9a-f-]{36}$/);
    });

    it("an identical memory (after normalization) makes no new row and raises confidence", async () => {
      const u = user();
      const first = await save(u, { memory_type: "fact", content: "Works at TechCorp", confidence: 0.6 });
      const again = await api.post(`/users/${u}/memories`, { memory_type: "fact", content: "  works at techcorp. " });
      expect(again.status).toBe(200);
      expect(again.body.id).toBe(first.id);
      expect(again.body.dedupe).toMatchObject({ action: "duplicate", similar_id: first.id, similarity: 1 });
      expect(again.body.confidence).toBeCloseTo(0.7);
      const list = await api.get(`/users/${u}/memories`);
      expect(list.body.data).toHaveLength(1);
      const history = await api.get(`/memories/${first.id}/history`);
      expect(history.body.data.map((e: { event_type: string }) => e.event_type)).toEqual(["dedupe", "create"]);
    });

    it("a near duplicate without a chat model: both kept, pair noted", async () => {
      const u = user();
      const a = await save(u, { memory_type: "preference", content: "Wants weekly exports every Monday at 07:00" });
      const r = await api.post(`/users/${u}/memories`, { memory_type: "preference", content: "Wants weekly exports every Monday at 7:00", dedupe_threshold: 0.8 });
      expect(r.status).toBe(201);
      expect(r.body.dedupe.action).toBe("kept_both");
      expect(r.body.dedupe.similar_id).toBe(a.id);
      expect(r.body.dedupe.similarity).toBeGreaterThan(0.8);
      expect(r.body.dedupe.similarity).toBeLessThan(1);
    });

    oneKind("rejects bad input with 422 naming the field", async () => {
      const u = user();
      const bad = async (body: unknown, field: string) => {
        const r = await api.post(`/users/${u}/memories`, body);
        expect(r.status).toBe(422);
        expect(r.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
      };
      await bad({ memory_type: "opinion", content: "x" }, "memory_type");
      await bad({ memory_type: "fact", content: "   " }, "content");
      await bad({ memory_type: "fact", content: "x", importance_score: 1.5 }, "importance_score");
      await bad({ memory_type: "fact", content: "x", source_session_id: "nope" }, "source_session_id");
      expect((await api.get(`/users/${u}/memories`)).body.data).toEqual([]);
    });
  });

  describe("list", () => {
    it("filters, searches, sorts and pages with cursors without duplicates", async () => {
      const u = user();
      for (let i = 0; i < 7; i++) {
        await save(u, { memory_type: i % 2 ? "fact" : "preference", content: `Memory number ${i} about ${i % 3 ? "coffee" : "tea"}`, importance_score: i / 10 });
      }
      const facts = await api.get(`/users/${u}/memories?memory_type=fact`);
      expect(facts.body.data).toHaveLength(3);
      const tea = await api.get(`/users/${u}/memories?q=tea`);
      expect(tea.body.data.map((m: { content: string }) => m.content).sort()).toEqual(["Memory number 0 about tea", "Memory number 3 about tea", "Memory number 6 about tea"]);
      // Word prefixes, every word required, any case; no letters or digits: a substring.
      const prefix = await api.get(`/users/${u}/memories?q=${encodeURIComponent("COFF numb")}`);
      expect(prefix.body.data).toHaveLength(4);
      expect((await api.get(`/users/${u}/memories?q=${encodeURIComponent("coffee tea")}`)).body.data).toHaveLength(0);
      expect((await api.get(`/users/${u}/memories?q=offee`)).body.data).toHaveLength(0);
      const range = await api.get(`/users/${u}/memories?min_importance=0.2&max_importance=0.4`);
      expect(range.body.data).toHaveLength(3);

      const seen: number[] = [];
      let cursor: string | null = null;
      do {
        const r: Res = await api.get(`/users/${u}/memories?sort=importance_score&order=asc&limit=3${cursor ? `&cursor=${cursor}` : ""}`);
        expect(r.status).toBe(200);
        seen.push(...r.body.data.map((m: { importance_score: number }) => m.importance_score));
        cursor = r.body.next_cursor;
      } while (cursor);
      expect(seen).toEqual([0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6]);
      await save(u, { memory_type: "fact", content: "Rates it 5/5 :-)" });
      expect((await api.get(`/users/${u}/memories?q=${encodeURIComponent(":-)")}`)).body.data.map((m: { content: string }) => m.content)).toEqual(["Rates it 5/5 :-)"]);
      expect((await api.get(`/users/${u}/memories?sort=colour`)).body.error.details[0].field).toBe("sort");
    });
  });

  describe("list sorting", () => {
    it("sorts by every key in both orders, paging with cursors (never accessed counts as the oldest access)", async () => {
      const u = user();
      // Created alpha, bravo, charlie, delta in that order.
      const made: Record<string, { id: string; version: number }> = {};
      for (const [name, importance] of [["alpha", 0.3], ["bravo", 0.9], ["charlie", 0.1], ["delta", 0.6]] as const) {
        made[name] = await save(u, { memory_type: "fact", content: `Sorting ${name} kayak`, importance_score: importance });
        await new Promise((r) => setTimeout(r, 15));
      }
      // Edited: charlie, then alpha (updated_at order: bravo, delta, charlie, alpha).
      for (const name of ["charlie", "alpha"]) {
        expect((await api.patch(`/memories/${made[name].id}`, { version: 1, confidence: 0.7 })).status).toBe(200);
        await new Promise((r) => setTimeout(r, 15));
      }
      // Accessed: alpha once, bravo twice, delta three times, charlie never (in that order).
      for (const [name, times] of [["alpha", 1], ["bravo", 2], ["delta", 3]] as const) {
        for (let i = 0; i < times; i++) {
          const s = await api.post(`/users/${u}/memories/search`, { query: `Sorting ${name} kayak`, k: 1, weights: { similarity: 1, recency: 0, importance: 0 } });
          expect(s.body.data.map((h: { memory: { id: string } }) => h.memory.id)).toEqual([made[name].id]);
          await new Promise((r) => setTimeout(r, 15));
        }
      }
      const ids = (names: string[]) => names.map((n) => made[n].id);
      const expected: Record<string, Record<"asc" | "desc", string[]>> = {
        created_at: { asc: ["alpha", "bravo", "charlie", "delta"], desc: ["delta", "charlie", "bravo", "alpha"] },
        updated_at: { asc: ["bravo", "delta", "charlie", "alpha"], desc: ["alpha", "charlie", "delta", "bravo"] },
        importance_score: { asc: ["charlie", "alpha", "delta", "bravo"], desc: ["bravo", "delta", "alpha", "charlie"] },
        access_count: { asc: ["charlie", "alpha", "bravo", "delta"], desc: ["delta", "bravo", "alpha", "charlie"] },
        // Never accessed sorts as the oldest access (list-memories.ts: COALESCE(last_accessed_at, epoch)): first when
        // looking for stale memories, last when looking for recent ones.
        last_accessed_at: { asc: ["charlie", "alpha", "bravo", "delta"], desc: ["delta", "bravo", "alpha", "charlie"] },
      };
      for (const [sort, orders] of Object.entries(expected)) {
        for (const order of ["asc", "desc"] as const) {
          const seen: string[] = [];
          let cursor: string | null = null;
          do {
            const r: Res = await api.get(`/users/${u}/memories?sort=${sort}&order=${order}&limit=3${cursor ? `&cursor=${cursor}` : ""}`);
            expect(r.status, JSON.stringify(r.body)).toBe(200);
            seen.push(...r.body.data.map((m: { id: string }) => m.id));
            cursor = r.body.next_cursor;
          } while (cursor);
          expect(seen, `${sort} ${order}`).toEqual(ids(orders[order]));
        }
      }
      // The default is updated_at, newest first.
      expect((await api.get(`/users/${u}/memories`)).body.data.map((m: { id: string }) => m.id)).toEqual(ids(expected.updated_at.desc));
      // A cursor of one sort is refused by another.
      const page = await api.get(`/users/${u}/memories?sort=importance_score&limit=1`);
      const wrong = await api.get(`/users/${u}/memories?sort=created_at&limit=1&cursor=${page.body.next_cursor}`);
      expect(wrong.status).toBe(400);
      expect(wrong.body.error.code).toBe("invalid_cursor");
    });
  });

  describe("edit, archive, restore, delete, history", () => {
    it("edits with a version check: a stale edit gets 409 and the current memory", async () => {
      const u = user();
      const m = await save(u, { memory_type: "fact", content: "Lives in Hamburg" });
      const ok = await api.patch(`/memories/${m.id}`, { version: 1, content: "Lives in Berlin", reason: "moved", actor: "ui" });
      expect(ok.status).toBe(200);
      expect(ok.body).toMatchObject({ content: "Lives in Berlin", version: 2 });
      const stale = await api.patch(`/memories/${m.id}`, { version: 1, content: "Lives in Munich" });
      expect(stale.status).toBe(409);
      expect(stale.body.error.code).toBe("version_conflict");
      expect(stale.body.error.details[0]).toMatchObject({ field: "version", current: { content: "Lives in Berlin", version: 2 } });
      expect((await api.get(`/memories/${m.id}`)).body.content).toBe("Lives in Berlin");
      expect((await api.patch(`/memories/${m.id}`, { content: "no version" })).body.error.details[0].field).toBe("version");

      const history = (await api.get(`/memories/${m.id}/history`)).body.data;
      expect(history[0]).toMatchObject({ event_type: "update", actor: "ui", reason: "moved", before: { content: "Lives in Hamburg" }, after: { content: "Lives in Berlin" } });

      // The new content is what retrieval matches now.
      const s = await api.post(`/users/${u}/memories/search`, { query: "Berlin", dry_run: true });
      expect(s.body.data[0].memory.id).toBe(m.id);
    });

    it("archives and restores (idempotent), deletes permanently only archived memories with confirmation", async () => {
      const u = user();
      const m = await save(u, { memory_type: "pattern", content: "Writes reports on Monday mornings" });
      expect((await api.del(`/memories/${m.id}?confirm=true`)).status).toBe(409);
      const archived = await api.post(`/memories/${m.id}/archive`, { reason: "stale" });
      expect(archived.body.status).toBe("archived");
      expect((await api.post(`/memories/${m.id}/archive`)).body.version).toBe(archived.body.version);
      expect((await api.get(`/users/${u}/memories`)).body.data).toEqual([]);
      expect((await api.get(`/users/${u}/memories?status=archived`)).body.data).toHaveLength(1);
      expect((await api.post(`/memories/${m.id}/restore`)).body.status).toBe("active");
      // A bad body is a 422 naming the field, and changes nothing.
      const badArchive = await api.post(`/memories/${m.id}/archive`, { actor: "robot" });
      expect(badArchive.status).toBe(422);
      expect(badArchive.body.error.details[0].field).toBe("actor");
      expect((await api.post(`/memories/${m.id}/restore`, { reason: 5 })).body.error.details[0].field).toBe("reason");
      expect((await api.get(`/memories/${m.id}`)).body.status).toBe("active");
      await api.post(`/memories/${m.id}/archive`);
      const noConfirm = await api.del(`/memories/${m.id}`);
      expect(noConfirm.status).toBe(422);
      expect(noConfirm.body.error.details[0].field).toBe("confirm");
      expect((await api.del(`/memories/${m.id}?confirm=true`)).status).toBe(204);
      expect((await api.get(`/memories/${m.id}`)).status).toBe(404);
      expect((await api.get(`/memories/${randomUUID()}`)).status).toBe(404);
    });
  });

  describe("edit fields and unknown ids", () => {
    it("PATCH changes memory_type, importance_score and structured_data, recorded in history", async () => {
      const u = user();
      const m = await save(u, { memory_type: "fact", content: "Runs on Sundays", importance_score: 0.2, structured_data: { day: "sunday" } });
      const r = await api.patch(`/memories/${m.id}`, { version: 1, memory_type: "pattern", importance_score: 0.75, structured_data: { day: "sunday", km: 10 } });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body).toMatchObject({ memory_type: "pattern", importance_score: 0.75, structured_data: { day: "sunday", km: 10 }, content: "Runs on Sundays", version: 2 });
      expect((await api.get(`/memories/${m.id}`)).body).toMatchObject({ memory_type: "pattern", importance_score: 0.75, structured_data: { day: "sunday", km: 10 } });
      expect((await api.get(`/users/${u}/memories?memory_type=pattern`)).body.data.map((x: { id: string }) => x.id)).toEqual([m.id]);
      expect((await api.get(`/users/${u}/memories?memory_type=fact`)).body.data).toEqual([]);
      const [event] = (await api.get(`/memories/${m.id}/history`)).body.data;
      expect(event).toMatchObject({
        event_type: "update",
        before: { memory_type: "fact", importance_score: 0.2, structured_data: { day: "sunday" } },
        after: { memory_type: "pattern", importance_score: 0.75, structured_data: { day: "sunday", km: 10 } },
      });
      // null clears structured data; out-of-range and unknown values are 422 naming the field.
      expect((await api.patch(`/memories/${m.id}`, { version: 2, structured_data: null })).body).toMatchObject({ structured_data: null, version: 3 });
      for (const [body, field] of [
        [{ version: 3, importance_score: 1.5 }, "importance_score"],
        [{ version: 3, memory_type: "mood" }, "memory_type"],
        [{ version: 3, structured_data: "text" }, "structured_data"],
      ] as const) {
        const bad = await api.patch(`/memories/${m.id}`, body);
        expect(bad.status).toBe(422);
        expect(bad.body.error.details[0].field).toBe(field);
      }
      expect((await api.get(`/memories/${m.id}`)).body).toMatchObject({ version: 3, memory_type: "pattern", importance_score: 0.75 });
    });

    oneKind("an unknown or malformed memory id is a 404 on every memory route", async () => {
      const u = user();
      const real = await save(u, { memory_type: "fact", content: "A real memory" });
      for (const id of [randomUUID(), "not-a-uuid"]) {
        for (const r of [
          await api.get(`/memories/${id}`),
          await api.patch(`/memories/${id}`, { version: 1, content: "x" }),
          await api.del(`/memories/${id}?confirm=true`),
          await api.post(`/memories/${id}/archive`),
          await api.post(`/memories/${id}/restore`),
          await api.get(`/memories/${id}/history`),
          await api.get(`/memories/${id}/relations`),
          await api.post(`/memories/${id}/relations`, { target_id: real.id, relation_type: "supports" }),
          await api.del(`/memories/${id}/relations/${randomUUID()}`),
          await api.get(`/memories/${id}/accesses`),
          await api.post(`/memories/${id}/unmerge`),
        ]) {
          expect(r.status, JSON.stringify(r.body)).toBe(404);
          expect(r.body.error.code).toBe("not_found");
        }
      }
      // An unknown relation of a real memory, too.
      expect((await api.del(`/memories/${real.id}/relations/${randomUUID()}`)).status).toBe(404);
      expect((await api.get(`/memories/${real.id}/relations`)).body.data).toEqual([]);
    });
  });

  describe("retrieval is per user", () => {
    it("one user's search never returns another user's memories", async () => {
      const [a, b] = [user(), user()];
      const mine = await save(a, { memory_type: "preference", content: "Loves espresso with oat milk", importance_score: 0.1 });
      // The other user's memories match the query better and matter more.
      const theirs = [];
      for (const content of ["Loves espresso with oat milk", "Loves espresso", "Espresso with oat milk every morning"]) {
        theirs.push((await save(b, { memory_type: "preference", content, importance_score: 1 })).id);
      }
      for (const body of [{ query: "espresso oat milk", k: 50 }, { query: "espresso", k: 50, min_score: -10, weights: { similarity: 0, recency: 0, importance: 1 } }]) {
        const r = await api.post(`/users/${a}/memories/search`, { ...body, dry_run: true });
        expect(r.status).toBe(200);
        expect(r.body.data.map((h: { memory: { id: string; user_id: string } }) => [h.memory.id, h.memory.user_id])).toEqual([[mine.id, a]]);
      }
      const ctx = await api.post("/context", { user_id: a, query: "espresso", strategy: { type: "token_buffer", max_token_limit: 10 }, memory: { k: 50, dry_run: true } });
      expect(ctx.body.memories.map((m: { id: string }) => m.id)).toEqual([mine.id]);
      const theirsFound = await api.post(`/users/${b}/memories/search`, { query: "espresso", k: 50, dry_run: true });
      expect(theirsFound.body.data.map((h: { memory: { id: string } }) => h.memory.id).sort()).toEqual([...theirs].sort());
    });
  });

  describe("relations", () => {
    it("relates memories of one user, lists both directions, removes softly", async () => {
      const u = user();
      const a = await save(u, { memory_type: "preference", content: "Budget is 120 euros a day" });
      const b = await save(u, { memory_type: "preference", content: "Budget is 90 euros a day" });
      const r = await api.post(`/memories/${b.id}/relations`, { target_id: a.id, relation_type: "contradicts", strength: 0.9, note: "older figure" });
      expect(r.status).toBe(201);
      expect(r.body).toMatchObject({ source_id: b.id, target_id: a.id, relation_type: "contradicts", strength: 0.9, created_by: "api" });
      expect((await api.get(`/memories/${a.id}/relations`)).body.data).toHaveLength(1);
      expect((await api.post(`/memories/${a.id}/relations`, { target_id: b.id, relation_type: "merged_into" })).status).toBe(422);
      expect((await api.post(`/memories/${a.id}/relations`, { target_id: a.id, relation_type: "supports" })).body.error.details[0].field).toBe("target_id");
      const other = await save(user(), { memory_type: "fact", content: "Someone else" });
      expect((await api.post(`/memories/${a.id}/relations`, { target_id: other.id, relation_type: "supports" })).status).toBe(422);
      expect((await api.del(`/memories/${a.id}/relations/${r.body.id}`)).body.removed_at).not.toBeNull();
      expect((await api.get(`/memories/${a.id}/relations`)).body.data).toEqual([]);
      expect((await api.get(`/memories/${a.id}/relations?include_removed=true`)).body.data).toHaveLength(1);
      const badQuery = await api.get(`/memories/${a.id}/relations?include_removed=yes`);
      expect(badQuery.status).toBe(422);
      expect(badQuery.body.error.details[0].field).toBe("include_removed");
    });
  });

  describe("scored retrieval", () => {
    let u: string;
    const ids: Record<string, string> = {};
    beforeAll(async () => {
      u = user();
      ids.shellfish = (await save(u, { memory_type: "preference", content: "Does not eat shellfish or prawns", importance_score: 0.9 })).id;
      ids.fado = (await save(u, { memory_type: "preference", content: "Likes fado music in small venues", importance_score: 0.3 })).id;
      ids.berlin = (await save(u, { memory_type: "fact", content: "Lives in Berlin", importance_score: 0.6 })).id;
      ids.skill = (await save(u, { memory_type: "skill", content: "Plan trips by grouping sights per neighbourhood", importance_score: 0.5 })).id;
    });

    it("ranks with a full breakdown that adds up, using the design doc's default weights", async () => {
      const r = await api.post(`/users/${u}/memories/search`, { query: "does the user eat shellfish?", dry_run: true });
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ embedding_model: "lexical-hash-v1", embedding_kind: "lexical", weights: { similarity: 0.6, recency: 0.2, importance: 0.2 } });
      expect(r.body.data[0].memory.id).toBe(ids.shellfish);
      for (const hit of r.body.data) {
        const b = hit.breakdown;
        expect(b.days_since_access).toBe(365); // never accessed
        expect(b.time_decay).toBeCloseTo(Math.exp(-365 / 30), 10);
        expect(b.similarity_term).toBeCloseTo(0.6 * b.cosine, 10);
        expect(b.recency_term).toBeCloseTo(0.2 * b.time_decay, 10);
        expect(b.importance_term).toBeCloseTo(0.2 * b.importance, 10);
        expect(hit.score).toBeCloseTo(b.similarity_term + b.recency_term + b.importance_term, 10);
        expect(b.final).toBe(hit.score);
      }
      const scores = r.body.data.map((h: { score: number }) => h.score);
      expect(scores).toEqual([...scores].sort((x: number, y: number) => y - x));
    });

    it("weights, type filters, k and min_score change the result", async () => {
      const byImportance = await api.post(`/users/${u}/memories/search`, { query: "fado music", weights: { similarity: 0, recency: 0, importance: 1 }, dry_run: true, k: 4 });
      expect(byImportance.body.data[0].memory.id).toBe(ids.shellfish);
      const bySimilarity = await api.post(`/users/${u}/memories/search`, { query: "fado music", weights: { similarity: 1, recency: 0, importance: 0 }, dry_run: true });
      expect(bySimilarity.body.data[0].memory.id).toBe(ids.fado);
      const skills = await api.post(`/users/${u}/memories/search`, { query: "fado music", memory_types: ["skill"], dry_run: true });
      expect(skills.body.data.map((h: { memory: { id: string } }) => h.memory.id)).toEqual([ids.skill]);
      const k1 = await api.post(`/users/${u}/memories/search`, { query: "Berlin", k: 1, dry_run: true });
      expect(k1.body.data).toHaveLength(1);
      const strict = await api.post(`/users/${u}/memories/search`, { query: "fado music", min_score: 0.99, dry_run: true });
      expect(strict.body.data).toEqual([]);
      const bad = await api.post(`/users/${u}/memories/search`, { query: "", k: 0 });
      expect(bad.status).toBe(422);
    });

    it("marks returned memories accessed (not on dry runs) and logs every retrieval", async () => {
      const before = (await api.get(`/memories/${ids.berlin}`)).body;
      await api.post(`/users/${u}/memories/search`, { query: "where does the user live? Berlin", k: 1, dry_run: true });
      expect((await api.get(`/memories/${ids.berlin}`)).body.access_count).toBe(before.access_count);
      const live = await api.post(`/users/${u}/memories/search`, { query: "where does the user live? Berlin", k: 1 });
      expect(live.body.data[0].memory.id).toBe(ids.berlin);
      const after = (await api.get(`/memories/${ids.berlin}`)).body;
      expect(after.access_count).toBe(before.access_count + 1);
      expect(after.last_accessed_at).not.toBeNull();
      // Accessing is not an edit: no version bump.
      expect(after.version).toBe(before.version);
      const accesses = (await api.get(`/memories/${ids.berlin}/accesses`)).body.data;
      expect(accesses.map((a: { query: string }) => a.query)).toContain("where does the user live? Berlin");
      expect(accesses[0]).toMatchObject({ rank: 1, dry_run: false });
      // Recently accessed now decays less than never-accessed memories.
      const again = await api.post(`/users/${u}/memories/search`, { query: "Berlin", dry_run: true });
      const hit = again.body.data.find((h: { memory: { id: string } }) => h.memory.id === ids.berlin);
      expect(hit.breakdown.days_since_access).toBeLessThan(0.01);
      expect(hit.breakdown.time_decay).toBeGreaterThan(0.99);
    });
  });

  it("lists users that have memories, with counts kept through every kind of write", async () => {
    const u = user();
    const counts = async () => ((await api.get(`/memory-users`)).body.data as { user_id: string }[]).find((x) => x.user_id === u);
    const a = await save(u, { memory_type: "fact", content: "Has a cat named Miso" });
    expect(await counts()).toEqual({ user_id: u, total: 1, active: 1 });
    const b = await save(u, { memory_type: "fact", content: "Plays the cello on Sundays" });
    await save(u, { memory_type: "fact", content: "has a cat named miso." }); // a duplicate: no new row
    expect(await counts()).toEqual({ user_id: u, total: 2, active: 2 });
    expect((await api.post(`/memories/${a.id}/archive`, {})).status).toBe(200);
    expect(await counts()).toEqual({ user_id: u, total: 2, active: 1 });
    const bulk = await api.post(`/users/${u}/memories/bulk`, { action: "archive", ids: [b.id] });
    expect(bulk.status, JSON.stringify(bulk.body)).toBe(200);
    expect(await counts()).toEqual({ user_id: u, total: 2, active: 0 });
    expect((await api.del(`/memories/${a.id}?confirm=true`)).status).toBe(204);
    expect((await api.del(`/memories/${b.id}?confirm=true`)).status).toBe(204);
    expect(await counts()).toBeUndefined();
  });
});
