import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient } from "../helpers/api-client";
import type { AppServer } from "../helpers/app-server";
import { sharedProject, type SharedProject } from "../helpers/shared-app";
import { DATABASE_KINDS, describeOnOneKind, itOnOneKind, ONE_KIND, startAppOn } from "../helpers/test-database";
import { startOpenAiStub, type OpenAiStub } from "../helpers/openai-stub";

// Curation over real HTTP: merge/unmerge, compress, extract, review queue, bulk,
// memory.md, metrics. One server without a chat model (local rules), one with the
// OpenAI stub as its chat model.

type Api = ReturnType<typeof apiClient>;
const user = () => `cur-${randomUUID().slice(0, 8)}`;

async function createMemory(api: Api, u: string, body: Record<string, unknown>) {
  const r = await api.post(`/users/${u}/memories`, body);
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body as { id: string; [k: string]: any };
}

async function listAll(api: Api, u: string, status = "all") {
  const r = await api.get(`/users/${u}/memories?status=${status}&limit=500`);
  expect(r.status).toBe(200);
  return r.body.data as any[];
}

async function conversationWith(api: Api, endUser: string, queries: string[]) {
  const c = await api.post("/conversations", { app_id: "curation-test", end_user_id: endUser, name: "extract" });
  expect(c.status).toBe(201);
  for (const q of queries) {
    const m = await api.post(`/conversations/${c.body.id}/messages`, { query: q, answer: "Noted." });
    expect(m.status).toBe(201);
  }
  return c.body.id as string;
}

describe.each(DATABASE_KINDS)("memory curation API on %s (no chat model)", (kind) => {
  let server: SharedProject;
  let api: Api;
  // Refusals decided before any write and the OpenAPI text run on one kind (the rule is in
  // tests/helpers/test-database.ts); what curation writes, on both.
  const refusal = itOnOneKind(kind);
  const refusals = describeOnOneKind(kind);

  beforeAll(async () => {
    server = await sharedProject(kind, "memory-curation");
    api = apiClient(server.url, server.headers);
  });
  afterAll(async () => {
    await server?.stop();
  });

  describe("merge and unmerge", () => {
    it("merges, then unmerges: statuses, relations and history round-trip", async () => {
      const u = user();
      const a = await createMemory(api, u, { memory_type: "preference", content: "Prefers dark mode in the editor", importance_score: 0.4, confidence: 0.6, structured_data: { a: 1, k: "x" } });
      const b = await createMemory(api, u, { memory_type: "preference", content: "Likes high contrast themes", importance_score: 0.9, confidence: 1, structured_data: { b: 2, k: "y" } });
      const c = await createMemory(api, u, { memory_type: "fact", content: "Uses a 4k monitor at work", importance_score: 0.2, confidence: 0.8 });

      const m = await api.post("/memories/merge", { ids: [a.id, b.id, c.id], content: "Prefers dark, high-contrast themes on a 4k monitor", reason: "overlap" });
      expect(m.status, JSON.stringify(m.body)).toBe(201);
      expect(m.body).toMatchObject({ user_id: u, memory_type: "preference", status: "active", importance_score: 0.9, structured_data: { a: 1, b: 2, k: "y" } });
      expect(m.body.confidence).toBeCloseTo(0.8);
      expect(m.body.merged_from).toEqual([a.id, b.id, c.id]);
      const batch = m.body.batch_id;

      for (const s of [a, b, c]) {
        const got = await api.get(`/memories/${s.id}`);
        expect(got.body.status).toBe("archived");
        const rel = await api.get(`/memories/${s.id}/relations`);
        expect(rel.body.data).toEqual(
          expect.arrayContaining([expect.objectContaining({ source_id: s.id, target_id: m.body.id, relation_type: "merged_into", created_by: "system", removed_at: null })]),
        );
        const h = await api.get(`/memories/${s.id}/history`);
        expect(h.body.data.some((e: any) => e.event_type === "merge" && e.batch_id === batch && e.after.status === "archived")).toBe(true);
      }
      const mh = await api.get(`/memories/${m.body.id}/history`);
      expect(mh.body.data.map((e: any) => [e.event_type, e.batch_id])).toContainEqual(["merge", batch]);

      const un = await api.post(`/memories/${m.body.id}/unmerge`);
      expect(un.status, JSON.stringify(un.body)).toBe(200);
      expect(un.body.memory).toMatchObject({ id: m.body.id, status: "archived" });
      expect(un.body.restored.map((r: any) => [r.id, r.status]).sort()).toEqual([a.id, b.id, c.id].sort().map((id) => [id, "active"]));
      for (const s of [a, b, c]) {
        expect((await api.get(`/memories/${s.id}`)).body.status).toBe("active");
        const h = await api.get(`/memories/${s.id}/history`);
        expect(h.body.data.some((e: any) => e.event_type === "unmerge" && e.batch_id === un.body.batch_id)).toBe(true);
        const rel = await api.get(`/memories/${s.id}/relations?include_removed=true`);
        const merged = rel.body.data.find((r: any) => r.relation_type === "merged_into");
        expect(merged.removed_at).not.toBeNull();
      }
      expect((await api.get(`/memories/${m.body.id}`)).body.status).toBe("archived");

      const again = await api.post(`/memories/${m.body.id}/unmerge`, {});
      expect(again.status).toBe(422);
      const notMerge = await api.post(`/memories/${a.id}/unmerge`, {});
      expect(notMerge.status).toBe(422);
      expect((await api.post(`/memories/${randomUUID()}/unmerge`, {})).status).toBe(404);
    });

    refusal("validates: too few ids, duplicates, mixed users, unknown and archived ids; nothing is written", async () => {
      const u = user();
      const v = user();
      const a = await createMemory(api, u, { memory_type: "fact", content: "Lives in Lisbon" });
      const b = await createMemory(api, u, { memory_type: "fact", content: "Speaks Portuguese and English" });
      const other = await createMemory(api, v, { memory_type: "fact", content: "Has two cats" });
      const before = (await listAll(api, u)).length;

      const one = await api.post("/memories/merge", { ids: [a.id], content: "x" });
      expect(one.status).toBe(422);
      expect(one.body.error.details[0].field).toBe("ids");
      expect((await api.post("/memories/merge", { ids: [a.id, a.id], content: "x" })).status).toBe(422);
      expect((await api.post("/memories/merge", { ids: [a.id, b.id], content: "  " })).status).toBe(422);
      const mixed = await api.post("/memories/merge", { ids: [a.id, other.id], content: "x" });
      expect(mixed.status).toBe(422);
      expect(mixed.body.error.details[0]).toMatchObject({ field: "ids[1]", id: other.id });
      const unknownSuggest = await api.post("/memories/merge/suggest", { ids: [a.id, randomUUID()] });
      expect(unknownSuggest.status).toBe(404);
      const unknown = await api.post("/memories/merge", { ids: [a.id, randomUUID()], content: "x" });
      expect(unknown.status).toBe(404);
      expect(unknown.body.error.details[0].field).toBe("ids[1]");
      expect((await api.post(`/memories/${b.id}/archive`, {})).status).toBe(200);
      const archived = await api.post("/memories/merge", { ids: [a.id, b.id], content: "x" });
      expect(archived.status).toBe(422);
      expect(archived.body.error.details[0]).toMatchObject({ field: "ids[1]" });
      expect((await api.raw("POST", "/memories/merge", "{nope")).status).toBe(400);

      expect(await listAll(api, u)).toHaveLength(before);
      expect((await api.get(`/memories/${a.id}`)).body.status).toBe("active");
    });

    it("suggests a merged text from the distinct sentences without a chat model", async () => {
      const u = user();
      const a = await createMemory(api, u, { memory_type: "fact", content: "Works at Acme. Lives in Oslo." });
      const b = await createMemory(api, u, { memory_type: "fact", content: "lives in oslo! Has a dog" });
      const s = await api.post("/memories/merge/suggest", { ids: [a.id, b.id] });
      expect(s.status).toBe(200);
      expect(s.body).toEqual({ content: "Works at Acme. Lives in Oslo. Has a dog.", source: "local" });
      // Two wordings of one preference: one sentence, not both joined.
      const c = await createMemory(api, u, { memory_type: "preference", content: "Prefers window seats on flights." });
      const d = await createMemory(api, u, { memory_type: "preference", content: "Prefers a window seat on flights.", dedupe_threshold: 1 });
      const same = await api.post("/memories/merge/suggest", { ids: [c.id, d.id] });
      expect(same.body).toEqual({ content: "Prefers window seats on flights.", source: "local" });
    });
  });

  describe("compress", () => {
    it("previews groups of old memories and applies edited proposals in one batch", async () => {
      const u = user();
      const facts = [];
      for (const content of ["Has a cat named Miso", "The cat Miso is grey", "Owns a red bicycle", "Drives an old Volvo"]) {
        facts.push(await createMemory(api, u, { memory_type: "fact", content, importance_score: 0.3 }));
      }
      await createMemory(api, u, { memory_type: "preference", content: "Prefers tea" });
      await createMemory(api, u, { memory_type: "preference", content: "Prefers window seats" });

      const negative = await api.post(`/users/${u}/memories/compress/preview`, { older_than_days: -1 });
      expect(negative.status).toBe(422);
      expect(negative.body.error.details[0].field).toBe("older_than_days");
      const tooSmall = await api.post(`/users/${u}/memories/compress/preview`, { min_group_size: 1 });
      expect(tooSmall.status).toBe(422);
      expect(tooSmall.body.error.details[0].field).toBe("min_group_size");

      const none = await api.post(`/users/${u}/memories/compress/preview`, {});
      expect(none.status).toBe(200);
      expect(none.body).toMatchObject({ proposals: [], eligible: 0, truncated: false });

      const p = await api.post(`/users/${u}/memories/compress/preview`, { older_than_days: 0 });
      expect(p.status, JSON.stringify(p.body)).toBe(200);
      expect(p.body.eligible).toBe(6);
      expect(p.body.proposals.length).toBeGreaterThanOrEqual(1);
      for (const prop of p.body.proposals) {
        expect(prop).toMatchObject({ memory_type: "fact", method: "local-cluster" });
        expect(prop.compressed.length).toBeGreaterThanOrEqual(1);
        expect(prop.compressed.length).toBeLessThanOrEqual(3);
      }
      const typed = await api.post(`/users/${u}/memories/compress/preview`, { older_than_days: 0, memory_types: ["preference"] });
      expect(typed.body.proposals).toEqual([]);

      const proposal = p.body.proposals[0];
      const edited = { ...proposal, compressed: proposal.compressed.map((c: any, i: number) => ({ ...c, content: i === 0 ? "Has a grey cat named Miso" : c.content })) };
      delete edited.sources;
      const bad = await api.post(`/users/${u}/memories/compress/apply`, { proposals: [{ ...edited, source_ids: [...edited.source_ids, randomUUID()] }] });
      expect(bad.status).toBe(404);
      expect((await listAll(api, u, "archived")).length).toBe(0);

      const r = await api.post(`/users/${u}/memories/compress/apply`, { proposals: [edited], reason: "tidy up" });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      expect(r.body.counts).toEqual({ proposals: 1, created: edited.compressed.length, archived: edited.source_ids.length });
      expect(r.body.created[0]).toMatchObject({ content: "Has a grey cat named Miso", memory_type: "fact", status: "active" });
      for (const id of edited.source_ids) {
        expect((await api.get(`/memories/${id}`)).body.status).toBe("archived");
        const h = await api.get(`/memories/${id}/history`);
        expect(h.body.data.some((e: any) => e.event_type === "compress" && e.batch_id === r.body.batch_id)).toBe(true);
      }
      const rel = await api.get(`/memories/${r.body.created[0].id}/relations`);
      const derived = rel.body.data.filter((x: any) => x.relation_type === "derived_from");
      expect(derived.every((x: any) => x.source_id === r.body.created[0].id && x.created_by === "system")).toBe(true);
      expect(derived.map((x: any) => x.target_id).sort()).toEqual([...(edited.compressed[0].source_ids ?? edited.source_ids)].sort());

      const twice = await api.post(`/users/${u}/memories/compress/apply`, { proposals: [edited] });
      expect(twice.status).toBe(422);
      const overlap = await api.post(`/users/${u}/memories/compress/apply`, { proposals: [edited, edited] });
      expect(overlap.status).toBe(422);
    });
  });

  describe("extract and review", () => {
    it("extracts candidates by rules into the review queue; nothing is saved until approved", async () => {
      const u = user();
      const conv = await conversationWith(api, u, [
        "Hi, my name is Ana and I work at Acme Corp.",
        "What's the weather like today?",
        "I prefer dark mode. Also I don't eat meat.",
      ]);
      const r = await api.post(`/users/${u}/memories/extract`, { conversation_id: conv });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      expect(r.body.method).toBe("rules");
      expect(r.body.turns).toBe(3);
      const got = r.body.data.map((i: any) => [i.kind, i.status, i.candidate.memory_type, i.candidate.content]);
      expect(got).toEqual([
        ["extracted", "open", "fact", "Name is Ana"],
        ["extracted", "open", "fact", "Works at Acme Corp"],
        ["extracted", "open", "preference", "Prefers dark mode"],
        ["extracted", "open", "preference", "Does not eat meat"],
      ]);
      expect(r.body.data.every((i: any) => i.source_session_id === conv && i.candidate.source_message_id)).toBe(true);
      expect(await listAll(api, u)).toHaveLength(0);

      const again = await api.post(`/users/${u}/memories/extract`, { conversation_id: conv });
      expect(again.status).toBe(201);
      expect(again.body).toMatchObject({ data: [], skipped: 4 });

      expect((await api.post(`/users/${u}/memories/extract`, { conversation_id: randomUUID() })).status).toBe(404);
      expect((await api.post(`/users/${u}/memories/extract`, { conversation_id: conv, leaf_message_id: randomUUID() })).status).toBe(404);
      expect((await api.post(`/users/${u}/memories/extract`, { conversation_id: "nope" })).status).toBe(422);
      const other = await api.post(`/users/${user()}/memories/extract`, { conversation_id: conv });
      expect(other.status).toBe(422);
      expect(other.body.error.details[0]).toMatchObject({ field: "conversation_id", message: `belongs to end user ${u}` });
      const anonymous = await api.post("/conversations", { app_id: "curation-test", name: "no end user" });
      expect((await api.post(`/users/${u}/memories/extract`, { conversation_id: anonymous.body.id })).status).toBe(201);

      const queue = await api.get(`/users/${u}/review?kind=extracted&limit=3`);
      expect(queue.status).toBe(200);
      expect(queue.body.data).toHaveLength(3);
      expect(queue.body.next_cursor).toBeTruthy();
      const rest = await api.get(`/users/${u}/review?kind=extracted&limit=3&cursor=${queue.body.next_cursor}`);
      expect(rest.body.data).toHaveLength(1);
      expect(rest.body.next_cursor).toBeNull();
      const items = [...queue.body.data, ...rest.body.data];
      const byContent = new Map(items.map((i: any) => [i.candidate.content, i]));

      const name = byContent.get("Name is Ana");
      const ok = await api.post(`/users/${u}/review/${name.id}/resolve`, { action: "approve" });
      expect(ok.status, JSON.stringify(ok.body)).toBe(200);
      expect(ok.body.memory).toMatchObject({ content: "Name is Ana", memory_type: "fact", source_session_id: conv, status: "active" });
      expect(ok.body.dedupe.action).toBe("created");
      expect(ok.body.item).toMatchObject({ status: "resolved", resolution: "approve", memory_id: ok.body.memory.id });
      expect(ok.body.item.resolved_at).toBeTruthy();
      expect((await api.post(`/users/${u}/review/${name.id}/resolve`, { action: "approve" })).status).toBe(409);

      // Two approvals racing for one item: one saves, the other is a 409 and saves nothing.
      const works = byContent.get("Works at Acme Corp");
      expect((await api.post(`/users/${u}/review/${works.id}/resolve`, { action: "merge" })).status).toBe(422);
      const raced = await Promise.all([
        api.post(`/users/${u}/review/${works.id}/resolve`, { action: "approve", content: "Works at Acme Corp (first)" }),
        api.post(`/users/${u}/review/${works.id}/resolve`, { action: "approve", content: "Works at Acme Corp (second)" }),
      ]);
      expect(raced.map((r) => r.status).sort()).toEqual([200, 409]);
      const winner = raced.find((r) => r.status === 200)!.body;
      expect(winner.item).toMatchObject({ status: "resolved", resolution: "approve", memory_id: winner.memory.id });

      const edited = await api.post(`/users/${u}/review/${byContent.get("Prefers dark mode").id}/resolve`, { action: "approve", content: "Prefers dark mode everywhere", importance_score: 0.9 });
      expect(edited.body.memory).toMatchObject({ content: "Prefers dark mode everywhere", importance_score: 0.9, memory_type: "preference" });

      const rej = await api.post(`/users/${u}/review/${byContent.get("Does not eat meat").id}/resolve`, { action: "reject" });
      expect(rej.body.item).toMatchObject({ status: "resolved", resolution: "reject" });
      expect(rej.body.memory).toBeNull();
      expect((await api.post(`/users/${user()}/review/${works.id}/resolve`, { action: "reject" })).status).toBe(404);

      expect((await listAll(api, u)).map((m) => m.content).sort()).toEqual(["Name is Ana", winner.memory.content, "Prefers dark mode everywhere"].sort());
      const resolved = await api.get(`/users/${u}/review?status=resolved`);
      expect(resolved.body.data).toHaveLength(4);
      expect(resolved.body.data.find((i: any) => i.resolution === "approve").memory).toBeTruthy();
    });

    it("resolves duplicate pairs: keep, merge (suggested text) and archive the newer", async () => {
      const u = user();
      const pair = async (a: string, b: string) => {
        const first = await createMemory(api, u, { memory_type: "preference", content: a });
        const second = await createMemory(api, u, { memory_type: "preference", content: b, dedupe_threshold: 0.3 });
        expect(second.dedupe).toMatchObject({ action: "kept_both", similar_id: first.id });
        return { first, second };
      };
      const p1 = await pair("Prefers green tea in the morning", "Prefers green tea in the mornings, hot");
      const p2 = await pair("Likes hiking in the alps", "Likes hiking in the alps in summer");
      const p3 = await pair("Reads science fiction novels", "Reads science fiction novels at night");

      const q = await api.get(`/users/${u}/review?kind=duplicate`);
      expect(q.body.data).toHaveLength(3);
      const itemFor = (id: string) => q.body.data.find((i: any) => i.memory_id === id);
      const i1 = itemFor(p1.second.id);
      expect(i1.memory.id).toBe(p1.second.id);
      expect(i1.other_memory.id).toBe(p1.first.id);
      expect(i1.similarity).toBeGreaterThan(0.3);

      const keep = await api.post(`/users/${u}/review/${i1.id}/resolve`, { action: "keep" });
      expect(keep.body.item.resolution).toBe("keep");
      expect((await api.get(`/memories/${p1.first.id}`)).body.status).toBe("active");
      expect((await api.get(`/memories/${p1.second.id}`)).body.status).toBe("active");
      expect((await api.post(`/users/${u}/review/${i1.id}/resolve`, { action: "keep" })).status).toBe(409);
      expect((await api.post(`/users/${u}/review/${i1.id}/resolve`, { action: "approve" })).status).toBe(409);

      const merge = await api.post(`/users/${u}/review/${itemFor(p2.second.id).id}/resolve`, { action: "merge" });
      expect(merge.status, JSON.stringify(merge.body)).toBe(200);
      // The newer sentence says all the older one does, and more: it alone is the merged text.
      expect(merge.body.memory.content).toBe("Likes hiking in the alps in summer.");
      expect(merge.body.item.resolution).toBe("merge");
      expect((await api.get(`/memories/${p2.first.id}`)).body.status).toBe("archived");
      expect((await api.get(`/memories/${p2.second.id}`)).body.status).toBe("archived");

      const arch = await api.post(`/users/${u}/review/${itemFor(p3.second.id).id}/resolve`, { action: "archive" });
      expect(arch.body.memory).toMatchObject({ id: p3.second.id, status: "archived" });
      expect((await api.get(`/memories/${p3.first.id}`)).body.status).toBe("active");
      expect((await api.get(`/users/${u}/review`)).body.data).toHaveLength(0);
    });
  });

  describe("bulk", () => {
    it("is all or nothing, changes only what differs, and undoes", async () => {
      const u = user();
      const ms = [];
      for (const [t, c] of [["fact", "Bulk fact one"], ["fact", "Bulk fact two"], ["preference", "Bulk pref three"]] as const) {
        ms.push(await createMemory(api, u, { memory_type: t, content: c, importance_score: 0.5 }));
      }
      const bad = await api.post(`/users/${u}/memories/bulk`, { action: "archive", ids: [ms[0].id, ms[1].id, randomUUID()] });
      expect(bad.status).toBe(422);
      expect(bad.body.error.details[0].field).toBe("ids[2]");
      expect((await listAll(api, u, "active")).length).toBe(3);
      const foreign = await createMemory(api, user(), { memory_type: "fact", content: "Somebody else's" });
      expect((await api.post(`/users/${u}/memories/bulk`, { action: "archive", ids: [ms[0].id, foreign.id] })).status).toBe(422);
      expect((await api.post(`/users/${u}/memories/bulk`, { action: "set_type", ids: [ms[0].id] })).status).toBe(422);
      expect((await api.post(`/users/${u}/memories/bulk`, { action: "archive" })).status).toBe(422);
      expect((await api.post(`/users/${u}/memories/bulk`, { action: "archive", ids: [ms[0].id], filter: {} })).status).toBe(422);

      const arch = await api.post(`/users/${u}/memories/bulk`, { action: "archive", ids: [ms[0].id, ms[1].id] });
      expect(arch.status, JSON.stringify(arch.body)).toBe(200);
      expect(arch.body.affected).toBe(2);
      expect(arch.body.ids.sort()).toEqual([ms[0].id, ms[1].id].sort());
      const h = await api.get(`/memories/${ms[0].id}/history`);
      expect(h.body.data.some((e: any) => e.event_type === "archive" && e.batch_id === arch.body.batch_id)).toBe(true);
      const again = await api.post(`/users/${u}/memories/bulk`, { action: "archive", ids: [ms[0].id, ms[2].id] });
      expect(again.body).toMatchObject({ affected: 1, ids: [ms[2].id] });

      const undo = await api.post(`/users/${u}/memories/bulk/${arch.body.batch_id}/undo`);
      expect(undo.status, JSON.stringify(undo.body)).toBe(200);
      expect(undo.body).toMatchObject({ undone_batch_id: arch.body.batch_id, affected: 2 });
      expect((await api.get(`/memories/${ms[0].id}`)).body.status).toBe("active");
      expect((await api.get(`/memories/${ms[1].id}`)).body.status).toBe("active");
      expect((await api.post(`/users/${u}/memories/bulk/${arch.body.batch_id}/undo`)).status).toBe(409);
      expect((await api.post(`/users/${u}/memories/bulk/${randomUUID()}/undo`)).status).toBe(404);
      // A batch that is not a bulk operation (a merge) is undone from each memory's history, not here.
      const other = user();
      const m1 = await createMemory(api, other, { memory_type: "fact", content: "Merge source one" });
      const m2 = await createMemory(api, other, { memory_type: "fact", content: "Merge source two" });
      const merged = await api.post("/memories/merge", { ids: [m1.id, m2.id], content: "Merge sources one and two" });
      expect(merged.status).toBe(201);
      const notBulk = await api.post(`/users/${other}/memories/bulk/${merged.body.batch_id}/undo`);
      expect(notBulk.status).toBe(422);
      expect(notBulk.body.error.details[0].field).toBe("batch_id");
      expect((await api.post(`/users/${u}/memories/bulk/${arch.body.batch_id}/undo`, { actor: "robot" })).status).toBe(422);

      const imp = await api.post(`/users/${u}/memories/bulk`, { action: "set_importance", importance_score: 0.9, filter: { memory_type: "fact" } });
      expect(imp.body.affected).toBe(2);
      const typ = await api.post(`/users/${u}/memories/bulk`, { action: "set_type", memory_type: "pattern", filter: { q: "fact one" } });
      expect(typ.body).toMatchObject({ affected: 1, ids: [ms[0].id] });
      expect((await api.get(`/memories/${ms[0].id}`)).body).toMatchObject({ memory_type: "pattern", importance_score: 0.9 });
      // The importance batch cannot be undone over the later type change of ms[0].
      expect((await api.post(`/users/${u}/memories/bulk/${imp.body.batch_id}/undo`)).status).toBe(409);
      expect((await api.get(`/memories/${ms[1].id}`)).body.importance_score).toBe(0.9);
      const undoType = await api.post(`/users/${u}/memories/bulk/${typ.body.batch_id}/undo`, { actor: "ui" });
      expect(undoType.status).toBe(200);
      expect((await api.get(`/memories/${ms[0].id}`)).body.memory_type).toBe("fact");

      const restore = await api.post(`/users/${u}/memories/bulk`, { action: "restore", filter: {} });
      expect(restore.body).toMatchObject({ affected: 1, ids: [ms[2].id] });
    });
  });

  describe("memory.md", () => {
    it("round-trips: export, edit, preview, apply, export again", async () => {
      const u = user();
      const pref = await createMemory(api, u, { memory_type: "preference", content: "Prefers dark mode", importance_score: 0.8 });
      const fact = await createMemory(api, u, { memory_type: "fact", content: "Name is Ana" });
      const gone = await createMemory(api, u, { memory_type: "pattern", content: "Writes reports on Mondays" });
      const skill = await createMemory(api, u, { memory_type: "skill", content: "Deep research: search, read, summarize" });

      const res = await fetch(`${server.url}/api/v1/users/${u}/memory-md?file=memory`, { headers: server.headers });
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toContain("text/markdown");
      const md = await res.text();
      expect(md).toContain(`- Prefers dark mode <!-- id:${pref.id} importance:0.8 -->`);
      expect(md).not.toContain(skill.content);
      const learn = await (await fetch(`${server.url}/api/v1/users/${u}/memory-md?file=learnings`, { headers: server.headers })).text();
      expect(learn).toContain("## Skills");
      expect(learn).toContain(skill.id);

      const same = await api.post(`/users/${u}/memory-md/preview`, { file: "memory", text: md });
      expect(same.body).toEqual({ added: [], changed: [], archived: [], unchanged: 3 });

      const edited = md
        .replace("Prefers dark mode", "Prefers dark mode in every app")
        .replace(/^- Writes reports on Mondays.*$/m, "")
        .replace("## Facts\n", "## Facts\n\n- Lives in Porto <!-- importance:0.7 -->\n");
      const preview = await api.post(`/users/${u}/memory-md/preview`, { file: "memory", text: edited });
      expect(preview.status, JSON.stringify(preview.body)).toBe(200);
      expect(preview.body.added).toEqual([expect.objectContaining({ memory_type: "fact", content: "Lives in Porto", importance_score: 0.7 })]);
      expect(preview.body.changed).toEqual([expect.objectContaining({ id: pref.id, before: expect.objectContaining({ content: "Prefers dark mode" }), after: expect.objectContaining({ content: "Prefers dark mode in every app" }) })]);
      expect(preview.body.archived).toEqual([{ id: gone.id, content: "Writes reports on Mondays", memory_type: "pattern" }]);
      expect(preview.body.unchanged).toBe(1);
      expect((await api.get(`/memories/${pref.id}`)).body.content).toBe("Prefers dark mode");

      const applied = await api.post(`/users/${u}/memory-md/apply`, { file: "memory", text: edited });
      expect(applied.status, JSON.stringify(applied.body)).toBe(200);
      expect(applied.body.batch_id).toBeTruthy();
      const p = (await api.get(`/memories/${pref.id}`)).body;
      expect(p).toMatchObject({ content: "Prefers dark mode in every app", version: 2 });
      expect((await api.get(`/memories/${gone.id}`)).body.status).toBe("archived");
      expect((await api.get(`/memories/${fact.id}`)).body.version).toBe(1);
      const h = await api.get(`/memories/${pref.id}/history`);
      expect(h.body.data.some((e: any) => e.event_type === "update" && e.batch_id === applied.body.batch_id)).toBe(true);

      const md2 = await (await fetch(`${server.url}/api/v1/users/${u}/memory-md?file=memory`, { headers: server.headers })).text();
      expect(md2).toContain("Prefers dark mode in every app");
      expect(md2).toContain("Lives in Porto <!-- id:");
      expect(md2).not.toContain("Writes reports on Mondays");
      const stable = await api.post(`/users/${u}/memory-md/preview`, { file: "memory", text: md2 });
      expect(stable.body).toMatchObject({ added: [], changed: [], archived: [], unchanged: 3 });
      // The edited memory is findable by its new text (it was re-embedded).
      const search = await api.post(`/users/${u}/memories/search`, { query: "Prefers dark mode in every app", k: 1, dry_run: true });
      expect(search.body.data[0].memory.id).toBe(pref.id);
    });

    refusal("refuses bad markdown with the line, and writes nothing", async () => {
      const u = user();
      await createMemory(api, u, { memory_type: "fact", content: "Name is Bo" });
      const r = await api.post(`/users/${u}/memory-md/apply`, { file: "memory", text: "# Memory\n\n## Hobbies\n- Chess\n" });
      expect(r.status).toBe(422);
      expect(r.body.error.details[0]).toMatchObject({ field: "text", line: 4 });
      const unknown = await api.post(`/users/${u}/memory-md/apply`, { file: "memory", text: `## Facts\n- X <!-- id:${randomUUID()} -->\n` });
      expect(unknown.status).toBe(422);
      expect(unknown.body.error.message).toContain("Line 2");
      expect((await listAll(api, u, "active")).map((m) => m.content)).toEqual(["Name is Bo"]);
      expect((await api.get(`/users/${u}/memory-md?file=nope`)).status).toBe(422);
    });
  });

  refusals("limits and errors", () => {
    refusal("a bulk filter matching more than 1 000 memories is a 422 that changes nothing", async () => {
      const u = user();
      // 1 001 memories in one statement (a user import): the limit is what is tested, not the
      // way in (memory.md's apply of 1 001 bullets took 15 s on PGlite, docs/benchmarks.md section 46).
      const memories = Array.from({ length: 1001 }, (_, i) => {
        const content = `Bulk limit fact number ${i}`;
        return { id: randomUUID(), user_id: u, memory_type: "fact", content, content_key: content.toLowerCase() };
      });
      const doc = { format: "memscope.user-export", version: 2, user_id: u, exported_at: new Date().toISOString(), tables: { memories } };
      const imported = await api.post("/user-imports", doc);
      expect(imported.status, JSON.stringify(imported.body).slice(0, 300)).toBe(201);
      expect((await api.get(`/users/${u}/memories?limit=5`)).body.data).toHaveLength(5);
      const r = await api.post(`/users/${u}/memories/bulk`, { action: "archive", filter: {} });
      expect(r.status).toBe(422);
      expect(r.body.error.details[0]).toMatchObject({ field: "filter" });
      expect(r.body.error.message).toContain("more than 1000");
      const active = await api.get(`/users/${u}/memories?status=archived&limit=5`);
      expect(active.body.data).toEqual([]);
      // One fewer matches: allowed.
      const narrowed = await api.post(`/users/${u}/memories/bulk`, { action: "set_importance", importance_score: 0.3, filter: { q: "number 1" } });
      expect(narrowed.status).toBe(200);
      expect(narrowed.body.affected).toBeGreaterThan(100);
      const tooMany = await api.post(`/users/${u}/memories/bulk`, { action: "archive", ids: Array.from({ length: 1001 }, () => randomUUID()) });
      expect(tooMany.status).toBe(422);
      expect(tooMany.body.error.details[0].field).toBe("ids");
    }, 120_000);

    refusal("bodies over a route's limit are 413 payload_too_large: memory.md, curation, settings", async () => {
      const u = user();
      const over = (bytes: number) => "x".repeat(bytes);
      for (const [method, path, body] of [
        ["POST", `/users/${u}/memory-md/apply`, JSON.stringify({ file: "memory", text: over(6 * 1024 * 1024 + 1) })],
        ["POST", `/users/${u}/memory-md/preview`, JSON.stringify({ file: "memory", text: over(6 * 1024 * 1024 + 1) })],
        ["POST", "/memories/merge", JSON.stringify({ ids: [randomUUID(), randomUUID()], content: over(256 * 1024) })],
        ["POST", "/memories/merge/suggest", JSON.stringify({ ids: [randomUUID(), randomUUID()], pad: over(64 * 1024) })],
        ["POST", `/users/${u}/memories/bulk`, JSON.stringify({ action: "archive", ids: [randomUUID()], pad: over(1024 * 1024) })],
        ["POST", `/users/${u}/memories/compress/apply`, JSON.stringify({ proposals: [], pad: over(5 * 1024 * 1024) })],
        ["POST", `/users/${u}/memories/extract`, JSON.stringify({ conversation_id: randomUUID(), pad: over(64 * 1024) })],
        ["PUT", "/settings/models", JSON.stringify({ presets: [], pad: over(256 * 1024) })],
      ] as const) {
        const r = await api.raw(method, path, body);
        expect(r.status, `${method} ${path}`).toBe(413);
        expect(r.body.error.code).toBe("payload_too_large");
      }
      expect(await listAll(api, u)).toEqual([]);
    });

    refusal("an invalid user id in the path is a 422 naming user_id", async () => {
      const long = "u".repeat(201);
      for (const r of [
        await api.get(`/users/${long}/memories`),
        await api.post(`/users/${long}/memories`, { memory_type: "fact", content: "x" }),
        await api.get(`/users/%20/memories/metrics`),
        await api.post(`/users/${long}/memories/bulk`, { action: "archive", ids: [randomUUID()] }),
        await api.get(`/users/${long}/memory-md?file=memory`),
        await api.get(`/users/${long}/review`),
      ]) {
        expect(r.status).toBe(422);
        expect(r.body.error.details[0].field).toBe("user_id");
      }
    });

    refusal("a relation to an unknown memory, to itself or across users is a 422 naming target_id", async () => {
      const u = user();
      const a = await createMemory(api, u, { memory_type: "fact", content: "Relation source" });
      const other = await createMemory(api, user(), { memory_type: "fact", content: "Another user's memory" });
      for (const target_id of [randomUUID(), a.id, other.id]) {
        const r = await api.post(`/memories/${a.id}/relations`, { target_id, relation_type: "supports" });
        expect(r.status).toBe(422);
        expect(r.body.error.details[0].field).toBe("target_id");
      }
      expect((await api.get(`/memories/${a.id}/relations`)).body.data).toEqual([]);
    });
  });

  describe("metrics and openapi", () => {
    it("reports totals, importance, retrieval latency and accesses", async () => {
      const u = user();
      const fact = await createMemory(api, u, { memory_type: "fact", content: "Metrics fact about espresso", importance_score: 0.4 });
      const pref = await createMemory(api, u, { memory_type: "preference", content: "Metrics preference for espresso", importance_score: 0.8 });
      // Three real searches: two return both memories, the third (k 1) only the fact.
      const searches = [];
      for (const body of [{ query: "espresso", k: 5 }, { query: "espresso", k: 5 }, { query: "Metrics fact about espresso", k: 1 }]) {
        const s = await api.post(`/users/${u}/memories/search`, body);
        expect(s.status).toBe(200);
        searches.push(s.body);
      }
      expect(searches[2].data.map((h: any) => h.memory.id)).toEqual([fact.id]);
      expect(searches[0].data.map((h: any) => h.memory.id).sort()).toEqual([fact.id, pref.id].sort());
      const r = await api.get(`/users/${u}/memories/metrics`);
      expect(r.status).toBe(200);
      expect(r.body.totals).toEqual({ by_type: { preference: 1, fact: 1, pattern: 0, skill: 0 }, by_status: { active: 2, archived: 0 }, total: 2 });
      expect(r.body.average_importance).toBeCloseTo(0.6);
      // Percentiles of the three logged latencies, which are the searches' own latency_ms.
      const lat = searches.map((s) => s.latency_ms as number);
      const sorted = [...lat].sort((a, b) => a - b);
      expect(r.body.retrieval.count).toBe(3);
      expect.soft(r.body.retrieval.p50_ms).toBeCloseTo(sorted[1], 6);
      expect.soft(r.body.retrieval.p99_ms).toBeCloseTo(sorted[1] + 0.98 * (sorted[2] - sorted[1]), 6);
      expect(sorted[0]).toBeGreaterThan(0);
      expect(r.body.recent_retrievals.map((x: any) => [x.query, x.result_count])).toEqual([["Metrics fact about espresso", 1], ["espresso", 2], ["espresso", 2]]);
      expect(r.body.recent_retrievals.map((x: any) => x.latency_ms)).toEqual([lat[2], lat[1], lat[0]].map((x) => expect.closeTo(x, 6)));
      // Most accessed first: the fact 3 times, the preference twice.
      expect.soft(r.body.most_accessed.map((x: any) => [x.memory.id, x.access_count])).toEqual([[fact.id, 3], [pref.id, 2]]);

      const empty = await api.get(`/users/${user()}/memories/metrics`);
      expect(empty.body).toMatchObject({ average_importance: null, retrieval: { count: 0, p50_ms: null, p99_ms: null }, most_accessed: [], recent_retrievals: [] });
    });

    refusal("documents the curation operations", async () => {
      const doc = await api.get("/openapi.json");
      expect(doc.body.paths["/memories/merge"].post.tags).toEqual(["curation"]);
      expect(doc.body.paths["/users/{user_id}/memory-md/apply"].post).toBeTruthy();
      expect(doc.body.paths["/users/{user_id}/memories/bulk/{batch_id}/undo"].post).toBeTruthy();
    });
  });
});

// A model stub's answers: one kind (the rule is in tests/helpers/test-database.ts).
describe.each(ONE_KIND)("memory curation API on %s (chat model stub)", (kind) => {
  let server: AppServer;
  let stub: OpenAiStub;
  let api: Api;
  let failChat = false;

  beforeAll(async () => {
    stub = await startOpenAiStub({
      chat: (body) => {
        if (failChat) throw new Error("model overloaded");
        const prompt: string = body.messages[0].content;
        if (prompt.includes("Extract the user's long-term memories")) {
          return {
            memories: [
              { memory_type: "preference", content: "Prefers concise answers", importance_score: 0.7, structured_data: { style: "concise" } },
              { memory_type: "mood", content: "Is happy today" },
            ],
          };
        }
        if (prompt.includes("Compress them")) return [{ content: "Owns several vehicles", importance_score: 0.6, source_memory_ids: [1, 2, 3] }];
        if (prompt.includes("Combine them")) return { content: "Merged by the chat model" };
        if (prompt.includes("Decide how to handle them")) return { action: "keep_both", reason: "different" };
        return "{}";
      },
    });
    server = await startAppOn(kind, { env: { MEMSCOPE_CHAT_BASE_URL: stub.url, MEMSCOPE_CHAT_MODEL: "stub-chat" } });
    api = apiClient(server.url);
  });
  afterAll(async () => {
    await server?.stop();
    await stub?.stop();
  });

  it("extracts with the chat model (design prompt), dropping malformed candidates", async () => {
    const u = user();
    const conv = await conversationWith(api, u, ["Keep it short please, I hate long answers.", "Thanks"]);
    const r = await api.post(`/users/${u}/memories/extract`, { conversation_id: conv });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(r.body).toMatchObject({ method: "chat", turns: 2, skipped: 1 });
    expect(r.body.data.map((i: any) => i.candidate)).toEqual([
      expect.objectContaining({ memory_type: "preference", content: "Prefers concise answers", importance_score: 0.7, structured_data: { style: "concise" } }),
    ]);
    const call = stub.requests.filter((q) => q.path === "/v1/chat/completions").at(-1)!;
    expect(call.body.model).toBe("stub-chat");
    expect(call.body.messages[0].content).toContain("User: Keep it short please, I hate long answers.");
    expect(call.body.messages[0].content).toContain("Assistant: Noted.");
    expect(await listAll(api, u)).toHaveLength(0);

    const ok = await api.post(`/users/${u}/review/${r.body.data[0].id}/resolve`, { action: "approve" });
    expect(ok.body.memory).toMatchObject({ content: "Prefers concise answers", structured_data: { style: "concise" } });
  });

  it("suggests merges and proposes compressions with the chat model", async () => {
    const u = user();
    const ms = [];
    for (const content of ["Owns a red bicycle", "Drives an old Volvo", "Has a scooter"]) ms.push(await createMemory(api, u, { memory_type: "fact", content }));
    const s = await api.post("/memories/merge/suggest", { ids: [ms[0].id, ms[1].id] });
    expect(s.body).toEqual({ content: "Merged by the chat model", source: "chat" });

    const p = await api.post(`/users/${u}/memories/compress/preview`, { older_than_days: 0 });
    expect(p.status, JSON.stringify(p.body)).toBe(200);
    expect(p.body.proposals).toEqual([
      expect.objectContaining({ memory_type: "fact", method: "chat", source_ids: ms.map((m) => m.id), compressed: [{ content: "Owns several vehicles", importance_score: 0.6, source_ids: ms.map((m) => m.id) }] }),
    ]);
    const { sources: _s, ...proposal } = p.body.proposals[0];
    const applied = await api.post(`/users/${u}/memories/compress/apply`, { proposals: [proposal] });
    expect(applied.status).toBe(201);
    expect((await listAll(api, u, "active")).map((m) => m.content)).toEqual(["Owns several vehicles"]);
  });

  it("answers 502 provider_error when the chat model fails, and writes nothing", async () => {
    const u = user();
    const conv = await conversationWith(api, u, ["I prefer tabs."]);
    const ms = [];
    for (const content of ["Owns a green kayak", "Owns a blue canoe", "Owns a paddle board"]) ms.push(await createMemory(api, u, { memory_type: "fact", content }));
    const before = stub.requests.length;
    failChat = true;
    try {
      const extract = await api.post(`/users/${u}/memories/extract`, { conversation_id: conv });
      const suggest = await api.post("/memories/merge/suggest", { ids: [ms[0].id, ms[1].id] });
      const preview = await api.post(`/users/${u}/memories/compress/preview`, { older_than_days: 0 });
      for (const r of [extract, suggest, preview]) {
        expect(r.status, JSON.stringify(r.body)).toBe(502);
        expect(r.body.error.code).toBe("provider_error");
        expect(r.body.error.message).toMatch(/model overloaded|500/);
      }
    } finally {
      failChat = false;
    }
    // Each answer came from a failed call to the chat model, not from a local fallback.
    expect(stub.requests.slice(before).filter((q) => q.path === "/v1/chat/completions").length).toBeGreaterThanOrEqual(3);
    expect((await api.get(`/users/${u}/review`)).body.data).toHaveLength(0);
    expect((await listAll(api, u, "active")).map((m) => m.content).sort()).toEqual(["Owns a blue canoe", "Owns a green kayak", "Owns a paddle board"]);
  });
});
