import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient } from "../helpers/api-client";
import { sharedProject, type SharedProject } from "../helpers/shared-app";
import { DATABASE_KINDS } from "../helpers/test-database";

// Provenance over real HTTP: GET /memories/{id}/origin (conversation and turn, import,
// merge and compression sources, first event) and GET /conversations/{id}/memories
// (memories extracted from it, retrievals made for it with each hit's scores).

type Api = ReturnType<typeof apiClient>;

describe.each(DATABASE_KINDS)("provenance API on %s", (kind) => {
  let server: SharedProject;
  let api: Api;

  beforeAll(async () => {
    server = await sharedProject(kind, "provenance");
    api = apiClient(server.url, server.headers);
  });
  afterAll(async () => server?.stop());

  async function conversation(user: string, queries: string[]) {
    const c = await api.post("/conversations", { app_id: "provenance", end_user_id: user, name: `prov ${user}` });
    expect(c.status).toBe(201);
    const ids: string[] = [];
    for (const q of queries) {
      const m = await api.post(`/conversations/${c.body.id}/messages`, { query: q, answer: "Noted." });
      expect(m.status).toBe(201);
      ids.push(m.body.id);
    }
    return { id: c.body.id as string, turns: ids };
  }

  it("an approved extracted memory names its conversation and the turn it came from; the conversation lists it", async () => {
    const u = `prov-${randomUUID().slice(0, 8)}`;
    const conv = await conversation(u, ["What's the weather like?", "By the way, my name is Ana."]);
    const ex = await api.post(`/users/${u}/memories/extract`, { conversation_id: conv.id });
    expect(ex.status, JSON.stringify(ex.body)).toBe(201);
    const item = ex.body.data.find((i: any) => i.candidate.content === "Name is Ana");
    const ok = await api.post(`/users/${u}/review/${item.id}/resolve`, { action: "approve" });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    const memoryId = ok.body.memory.id;

    const origin = await api.get(`/memories/${memoryId}/origin`);
    expect(origin.status, JSON.stringify(origin.body)).toBe(200);
    expect(origin.body.conversation).toEqual({ id: conv.id, name: `prov ${u}`, deleted: false });
    expect(origin.body.turn).toEqual({ id: conv.turns[1], query: "By the way, my name is Ana." });
    expect(origin.body.import).toBeNull();
    expect(origin.body.merged_from).toEqual([]);
    expect(origin.body.created).toMatchObject({ event_type: "create" });

    const listed = await api.get(`/conversations/${conv.id}/memories`);
    expect(listed.status, JSON.stringify(listed.body)).toBe(200);
    expect(listed.body.extracted).toEqual([
      expect.objectContaining({ id: memoryId, content: "Name is Ana", memory_type: "fact", status: "active", source_message_id: conv.turns[1] }),
    ]);
  });

  it("lists the retrievals made for a conversation with each hit's scores; dry runs only on request", async () => {
    const u = `prov-${randomUUID().slice(0, 8)}`;
    const conv = await conversation(u, ["Plan a trip to Lisbon"]);
    const a = await api.post(`/users/${u}/memories`, { memory_type: "preference", content: "Prefers aisle seats on flights to Lisbon", importance_score: 0.7 });
    expect(a.status).toBe(201);
    await api.post(`/users/${u}/memories`, { memory_type: "fact", content: "Lives in Porto" });
    const s = await api.post(`/users/${u}/memories/search`, { query: "Lisbon flights", k: 5, conversation_id: conv.id });
    expect(s.status, JSON.stringify(s.body)).toBe(200);
    const dry = await api.post(`/users/${u}/memories/search`, { query: "Porto", k: 5, conversation_id: conv.id, dry_run: true });
    expect(dry.status).toBe(200);
    // Another conversation's retrieval is not listed.
    const other = await conversation(u, ["Something else"]);
    await api.post(`/users/${u}/memories/search`, { query: "Lisbon", conversation_id: other.id });

    const r = await api.get(`/conversations/${conv.id}/memories`);
    expect(r.status).toBe(200);
    expect(r.body.extracted).toEqual([]);
    expect(r.body.retrievals).toHaveLength(1);
    const [ret] = r.body.retrievals;
    expect(ret).toMatchObject({ id: s.body.retrieval_id, query: "Lisbon flights", user_id: u, dry_run: false, k: 5 });
    expect(ret.hits.map((h: any) => h.memory_id)).toEqual(s.body.data.map((d: any) => d.memory.id));
    expect(ret.hits[0]).toMatchObject({ rank: 1, memory: { id: a.body.id, content: "Prefers aisle seats on flights to Lisbon" } });
    expect(ret.hits[0].score).toBeCloseTo(s.body.data[0].score, 6);
    expect(ret.hits[0].cosine).toBeCloseTo(s.body.data[0].breakdown.cosine, 6);

    const withDry = await api.get(`/conversations/${conv.id}/memories?include_dry_runs=true&retrievals=10`);
    expect(withDry.body.retrievals.map((x: any) => [x.query, x.dry_run])).toEqual([
      ["Porto", true],
      ["Lisbon flights", false],
    ]);
    expect((await api.get(`/conversations/${conv.id}/memories?retrievals=0`)).body.retrievals).toEqual([]);
    expect((await api.get(`/conversations/${conv.id}/memories?retrievals=500`)).status).toBe(422);
    expect((await api.get(`/conversations/${randomUUID()}/memories`)).status).toBe(404);
  });

  it("a merge names its sources; an imported memory names its import", async () => {
    const u = `prov-${randomUUID().slice(0, 8)}`;
    const a = await api.post(`/users/${u}/memories`, { memory_type: "preference", content: "Likes green tea" });
    const b = await api.post(`/users/${u}/memories`, { memory_type: "preference", content: "Drinks tea without sugar" });
    const m = await api.post("/memories/merge", { ids: [a.body.id, b.body.id], content: "Likes green tea without sugar" });
    expect(m.status, JSON.stringify(m.body)).toBe(201);
    const o = await api.get(`/memories/${m.body.id}/origin`);
    expect(o.status).toBe(200);
    // Both relations are written in one transaction (same time): ordered by id.
    expect(o.body.merged_from.map((x: any) => [x.id, x.status])).toEqual(
      [
        [a.body.id, "archived"],
        [b.body.id, "archived"],
      ].sort((x, y) => (x[0] < y[0] ? -1 : 1)),
    );
    expect(o.body.conversation).toBeNull();
    expect(o.body.created.event_type).toBe("merge");

    const mem0Id = randomUUID();
    const imp = await api.post("/imports", {
      file_name: "provenance.json",
      content: JSON.stringify({ results: [{ id: mem0Id, memory: "Reads sci-fi on trains", user_id: u, created_at: "2026-01-02T09:00:00Z", updated_at: "2026-01-02T09:00:00Z" }] }),
    });
    expect(imp.status, JSON.stringify(imp.body)).toBe(202);
    for (let i = 0; i < 300; i++) {
      const j = await api.get(`/imports/${imp.body.id}`);
      if (j.body.status === "done" || j.body.status === "failed") break;
      await new Promise((res) => setTimeout(res, 100));
    }
    const list = (await api.get(`/users/${u}/memories?status=all&limit=50`)).body.data as any[];
    const imported = list.find((x) => x.content === "Reads sci-fi on trains");
    const io = await api.get(`/memories/${imported.id}/origin`);
    expect(io.status).toBe(200);
    expect(io.body.import).toMatchObject({ job_id: imp.body.id, source: "mem0", external_id: mem0Id });

    expect((await api.get(`/memories/${randomUUID()}/origin`)).status).toBe(404);
    expect((await api.get(`/memories/not-a-uuid/origin`)).status).toBe(404);
  });
});
