import { randomUUID } from "node:crypto";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sqlBesideServer, type RawQuery } from "../helpers/sql-beside-server";
import { apiClient } from "../helpers/api-client";
import type { AppServer } from "../helpers/app-server";
import { startOpenAiStub, type OpenAiStub } from "../helpers/openai-stub";
import { OWNER_ENV, signInOwner, type Owner } from "../helpers/owner";
import { DATABASE_KINDS, openTestDatabase, type TestDatabase } from "../helpers/test-database";

// Memory as of an instant (issue 22, part 1), through the real server on both databases.
// The property: random sequences of every memory write (create, update, dedupe, merge,
// unmerge, archive, restore, bulk and its undo, compress, relate and unrelate, delete) and
// searches that mark memories accessed, with the clock moving on between steps (real
// milliseconds: timestamps are stored to the ms). After each step the live state is read;
// at the end GET ?as_of=<that step's instant> must answer exactly that state, every field.

type Api = ReturnType<typeof apiClient>;
type Mem = Record<string, any> & { id: string; content: string; status: string; memory_type: string; version: number; relations: any[] };

const MODEL = "stub-embed-asof";
const TYPES = ["preference", "fact", "pattern", "skill"] as const;
const POOL = [
  "Prefers dark mode in every editor",
  "Lives in Lyon near the river",
  "Allergic to peanuts and cashews",
  "Drinks espresso every morning",
  "Uses vim keybindings",
  "Works remotely on Fridays",
  "Plays the cello on weekends",
  "Reads science fiction novels",
];
const OPS = [
  "create", "update", "dedupe", "merge", "unmerge", "archive", "restore", "bulk", "undo", "compress", "relate", "unrelate", "delete", "search",
] as const;
const FIELDS = [
  "id", "app_id", "user_id", "memory_type", "content", "structured_data", "source_session_id", "importance_score", "access_count",
  "last_accessed_at", "status", "confidence", "version", "created_at", "updated_at",
] as const;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** What a step compares: every field of part 1, relations as a set. */
function comparable(m: Mem) {
  const out: Record<string, unknown> = {};
  for (const f of FIELDS) out[f] = m[f];
  out.relations = [...m.relations].sort(byId);
  return out;
}

async function liveState(api: Api, user: string): Promise<Mem[]> {
  const r = await api.get(`/users/${user}/memories?status=all&limit=500`);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  const out: Mem[] = [];
  for (const m of r.body.data) {
    const rel = await api.get(`/memories/${m.id}/relations`);
    expect(rel.status).toBe(200);
    out.push({ ...m, relations: rel.body.data });
  }
  return out.sort(byId);
}

type Step = { op: (typeof OPS)[number]; a: number; b: number; c: number };

/** Runs one step against the live state; a refused request (409, 422) is a step too. */
type Ctx = { batches: string[]; n: number; done: Record<string, number> };

/** Runs one step against the live state and counts it when its request succeeded. */
async function runStep(api: Api, user: string, s: Step, state: Mem[], ctx: Ctx): Promise<void> {
  let ok = false;
  const track = <T extends { status: number }>(r: T): T => ((ok = r.status < 300), r);
  const call: Api = {
    ...api,
    get: async (p) => track(await api.get(p)),
    post: async (p, b) => track(await api.post(p, b)),
    patch: async (p, b) => track(await api.patch(p, b)),
    del: async (p) => track(await api.del(p)),
  };
  await stepRequest(call, user, s, state, ctx);
  if (ok) ctx.done[s.op] = (ctx.done[s.op] ?? 0) + 1;
}

async function stepRequest(api: Api, user: string, s: Step, state: Mem[], ctx: Ctx): Promise<void> {
  const pick = <T>(xs: T[], i: number): T | undefined => (xs.length ? xs[i % xs.length] : undefined);
  // Steps pick memories in the order they were made, not by id (ids are random): the same
  // steps do the same writes on every run.
  state = [...state].sort((x, y) => (x.created_at < y.created_at ? -1 : x.created_at > y.created_at ? 1 : x.content < y.content ? -1 : x.content > y.content ? 1 : byId(x, y)));
  const active = state.filter((m) => m.status === "active");
  const archived = state.filter((m) => m.status === "archived");
  const n = ++ctx.n;
  switch (s.op) {
    case "create": {
      await api.post(`/users/${user}/memories`, {
        memory_type: TYPES[s.a % 4],
        content: `${POOL[s.b % POOL.length]}${s.c % 2 ? ` (${n})` : ""}`,
        importance_score: (s.c % 10) / 10,
        confidence: ((s.a % 9) + 1) / 10,
        ...(s.c % 3 === 0 ? { structured_data: { k: s.b % 5, tags: ["x", n] } } : {}),
        ...(s.a % 5 === 0 ? { app_id: "app-asof" } : {}),
      });
      return;
    }
    case "update": {
      const m = pick(state, s.a);
      if (!m) return;
      const patch: Record<string, unknown> = { version: m.version };
      if (s.b % 2 === 0) patch.content = `${m.content.split(" [")[0]} [edit ${n}]`;
      if (s.b % 3 === 0) patch.memory_type = TYPES[s.c % 4];
      if (s.c % 2 === 0) patch.importance_score = (s.c % 11) / 10;
      if (s.c % 3 === 1) patch.confidence = ((s.b % 9) + 1) / 10;
      if (s.c % 5 === 2) patch.structured_data = s.b % 2 ? null : { edited: n };
      await api.patch(`/memories/${m.id}`, patch);
      return;
    }
    case "dedupe": {
      const m = pick(active, s.a);
      if (m) await api.post(`/users/${user}/memories`, { memory_type: m.memory_type, content: m.content });
      return;
    }
    case "merge": {
      const x = pick(active, s.a);
      const y = pick(active, s.a + 1 + (s.b % Math.max(1, active.length - 1)));
      if (x && y && x.id !== y.id) await api.post("/memories/merge", { ids: [x.id, y.id], content: `Merged ${n}: ${x.content} / ${y.content}`.slice(0, 500) });
      return;
    }
    case "unmerge": {
      const merged = state.filter((m) => m.relations.some((r: any) => r.relation_type === "merged_into" && r.target_id === m.id));
      const m = pick(merged, s.a) ?? pick(state, s.a);
      if (m) await api.post(`/memories/${m.id}/unmerge`, {});
      return;
    }
    case "archive": {
      const m = pick(active, s.a);
      if (m) await api.post(`/memories/${m.id}/archive`, {});
      return;
    }
    case "restore": {
      const m = pick(archived, s.a);
      if (m) await api.post(`/memories/${m.id}/restore`, {});
      return;
    }
    case "bulk": {
      const ids = [...new Set([pick(state, s.a)?.id, pick(state, s.b)?.id].filter(Boolean) as string[])];
      if (!ids.length) return;
      const action = (["archive", "restore", "set_type", "set_importance"] as const)[s.c % 4];
      const r = await api.post(`/users/${user}/memories/bulk`, {
        action,
        ids,
        ...(action === "set_type" ? { memory_type: TYPES[s.b % 4] } : {}),
        ...(action === "set_importance" ? { importance_score: (s.a % 11) / 10 } : {}),
      });
      if (r.status === 200 && r.body.batch_id && r.body.affected > 0) ctx.batches.push(r.body.batch_id);
      return;
    }
    case "undo": {
      const batch = ctx.batches[ctx.batches.length - 1 - (s.a % Math.max(1, ctx.batches.length))];
      if (batch) await api.post(`/users/${user}/memories/bulk/${batch}/undo`, {});
      return;
    }
    case "compress": {
      const x = pick(active, s.a);
      const y = x && active.find((m) => m.id !== x.id && m.memory_type === x.memory_type);
      if (x && y) {
        await api.post(`/users/${user}/memories/compress/apply`, {
          proposals: [{ memory_type: x.memory_type, source_ids: [x.id, y.id], compressed: [{ content: `Compressed ${n}: ${x.content}`.slice(0, 500), importance_score: 0.6 }] }],
        });
      }
      return;
    }
    case "relate": {
      const x = pick(state, s.a);
      const y = pick(state, s.b);
      if (x && y && x.id !== y.id) {
        await api.post(`/memories/${x.id}/relations`, { target_id: y.id, relation_type: (["supports", "contradicts", "refines"] as const)[s.c % 3], strength: (s.c % 10) / 10 });
      }
      return;
    }
    case "unrelate": {
      const rels = state.flatMap((m) => m.relations.map((r: any) => ({ m, r })));
      const x = pick(rels, s.a);
      if (x) await api.del(`/memories/${x.m.id}/relations/${x.r.id}`);
      return;
    }
    case "delete": {
      const m = pick(archived, s.a);
      if (m) await api.del(`/memories/${m.id}?confirm=true`);
      return;
    }
    case "search": {
      await api.post(`/users/${user}/memories/search`, { query: POOL[s.b % POOL.length], k: 1 + (s.c % 4) });
      return;
    }
  }
}

const stubEnv = (stub: OpenAiStub) => ({
  ...OWNER_ENV,
  MEMSCOPE_EMBEDDINGS_BASE_URL: stub.url,
  MEMSCOPE_EMBEDDINGS_MODEL: MODEL,
  MEMSCOPE_EMBEDDINGS_DIMENSIONS: "8",
});

describe.each(DATABASE_KINDS)("memory as of an instant, on %s", (kind) => {
  let stub: OpenAiStub;
  let db: TestDatabase;
  let server: AppServer;
  let api: Api;
  let owner: Owner;
  let key = "";

  beforeAll(async () => {
    stub = await startOpenAiStub();
    db = await openTestDatabase(kind);
    server = await db.startApp({ env: stubEnv(stub) });
    owner = await signInOwner(server.url);
    // A key that may write: its searches mark memories accessed.
    key = await owner.key("as-of", ["read", "write"]);
    api = apiClient(server.url, { authorization: `Bearer ${key}` });
  });
  afterAll(async () => {
    await server?.stop();
    await db?.stop();
    await stub?.stop();
  });

  /** Runs SQL on the suite's database: directly on PostgreSQL; on the embedded folder, with the server stopped. */
  async function inDatabase(fn: (q: RawQuery) => Promise<void>) {
    const before = server;
    server = await sqlBesideServer(db, server, fn, () => db.startApp({ env: stubEnv(stub) }));
    if (server !== before) {
      owner = await signInOwner(server.url);
      api = apiClient(server.url, { authorization: `Bearer ${key}` });
    }
  }

  /** Sorted as the list sorts: key, then id, in the order asked. */
  const listOrder = (ms: Mem[], key: "updated_at" | "importance_score", desc = true) =>
    [...ms]
      .sort((x, y) => {
        const kx = key === "updated_at" ? Date.parse(x.updated_at) : x.importance_score;
        const ky = key === "updated_at" ? Date.parse(y.updated_at) : y.importance_score;
        return (desc ? -1 : 1) * (kx - ky || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
      })
      .map((m) => m.id);

  /**
   * Runs the steps, capturing the live state after each; then as_of at each step's instant
   * must answer that state: every memory, every field, in the list's order and filters, page
   * by page, and one memory at a time.
   */
  async function checkSequence(steps: Step[], done: Record<string, number>): Promise<void> {
    const user = `asof-${randomUUID().slice(0, 8)}`;
    const ctx: Ctx = { batches: [], n: 0, done };
    const seen: { at: string; state: Mem[] }[] = [];
    let state: Mem[] = [];
    for (const s of steps) {
      await runStep(api, user, s, state, ctx);
      state = await liveState(api, user);
      seen.push({ at: new Date().toISOString(), state });
      // The next step's writes get a later millisecond than this instant.
      await sleep(4);
    }
    const everyId = [...new Set(seen.flatMap((x) => x.state.map((m) => m.id)))];
    for (const [i, { at, state: expected }] of seen.entries()) {
      const asOf = `as_of=${encodeURIComponent(at)}`;
      const r = await api.get(`/users/${user}/memories?status=all&limit=500&${asOf}`);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      const got = [...r.body.data].sort(byId) as Mem[];
      expect(got.map((m) => [m.id, m.reconstructed, m.reason])).toEqual(expected.map((m) => [m.id, true, null]));
      expect(got.map(comparable)).toEqual(expected.map(comparable));
      // The order and the filters of then (computed in SQL): newest change first by default,
      // active only by default, and by importance.
      expect(r.body.data.map((m: Mem) => m.id)).toEqual(listOrder(expected, "updated_at"));
      const active = await api.get(`/users/${user}/memories?limit=500&${asOf}`);
      expect(active.body.data.map((m: Mem) => m.id)).toEqual(listOrder(expected.filter((m) => m.status === "active"), "updated_at"));
      const byImportance = await api.get(`/users/${user}/memories?status=all&sort=importance_score&order=asc&limit=500&${asOf}`);
      expect(byImportance.body.data.map((m: Mem) => m.id)).toEqual(listOrder(expected, "importance_score", false));
      if (i === seen.length - 1) {
        // Page by page (the keyset cursor of then): the same order, nothing twice.
        const paged: string[] = [];
        let cursor: string | null = null;
        do {
          const p: { status: number; body: any } = await api.get(`/users/${user}/memories?status=all&limit=2&${asOf}${cursor ? `&cursor=${cursor}` : ""}`);
          expect(p.status, JSON.stringify(p.body)).toBe(200);
          paged.push(...p.body.data.map((m: Mem) => m.id));
          cursor = p.body.next_cursor;
        } while (cursor && paged.length <= expected.length);
        expect(paged).toEqual(listOrder(expected, "updated_at"));
      }
      // One memory at a time: the same state; one not alive then: 404 as an unknown id.
      const one = expected[i % Math.max(1, expected.length)];
      if (one) {
        const g = await api.get(`/memories/${one.id}?${asOf}`);
        expect(g.status).toBe(200);
        expect(comparable(g.body)).toEqual(comparable(one));
      }
      const absent = everyId.find((id) => !expected.some((m) => m.id === id));
      if (absent) expect((await api.get(`/memories/${absent}?${asOf}`)).status).toBe(404);
    }
  }

  it("property: as_of at each step's instant answers the state read live after that step, every memory, every field", async () => {
    // First one fixed sequence that gets every kind of write through (steps pick memories in
    // the order they were made, so it does the same writes on every run), then random ones.
    const s0 = (op: Step["op"], a = 0, b = 0, c = 0): Step => ({ op, a, b, c });
    const everyOp: Step[] = [
      s0("create", 0, 0, 1), s0("create", 0, 1, 1), s0("create", 0, 2, 1),
      s0("merge"), s0("unmerge"), s0("archive"), s0("delete"), s0("bulk", 0, 1, 2), s0("undo"), s0("compress"), s0("relate", 0, 1),
      s0("unrelate"), s0("search", 0, 0, 3), s0("dedupe"), s0("update"), s0("restore"), s0("create", 1, 3, 2),
    ];
    const done: Record<string, number> = {};
    await checkSequence(everyOp, done);
    console.log(`[as-of property, ${kind}] successful steps of the fixed sequence: ${JSON.stringify(done)}`);
    for (const op of OPS) expect(done[op] ?? 0, op).toBeGreaterThan(0);

    const step = fc.record({ op: fc.constantFrom(...OPS), a: fc.nat(1000), b: fc.nat(1000), c: fc.nat(1000) });
    const seed = fc.record({ op: fc.constant("create" as const), a: fc.nat(1000), b: fc.nat(1000), c: fc.nat(1000) });
    await fc.assert(
      fc.asyncProperty(fc.array(seed, { minLength: 2, maxLength: 3 }), fc.array(step, { minLength: 5, maxLength: 8 }), (seeds, steps) =>
        checkSequence([...seeds, ...steps], {}),
      ),
      // Six random sequences in `npm test` (each costs ~10 s of server time per database; the
      // fixed one above already gets every kind of write through); MEMSCOPE_PROPERTY_RUNS for more.
      { numRuns: Number(process.env.MEMSCOPE_PROPERTY_RUNS || 6), endOnFailure: true },
    );
  }, 900_000);

  it("search as_of scores with the content, accesses and decay of then; embeds each past text once (embedding cache)", async () => {
    const user = `asof-s-${randomUUID().slice(0, 8)}`;
    const a = (await api.post(`/users/${user}/memories`, { memory_type: "fact", content: "Allergic to peanuts", importance_score: 0.7 })).body;
    const b = (await api.post(`/users/${user}/memories`, { memory_type: "fact", content: "Lives in Lyon", importance_score: 0.2 })).body;
    // A search that marks both accessed (recency of then), a dry run to compare with, the instant to replay.
    expect((await api.post(`/users/${user}/memories/search`, { query: "peanuts Lyon", k: 2 })).body.access_recorded).toBe(true);
    await sleep(5);
    const live = await api.post(`/users/${user}/memories/search`, { query: "peanuts allergy", k: 5, dry_run: true });
    expect(live.status).toBe(200);
    await sleep(5);
    const t1 = new Date().toISOString();
    await sleep(5);
    // Afterwards: a's content changes, b is searched (accessed) and archived.
    expect((await api.patch(`/memories/${a.id}`, { version: a.version, content: "Allergic to shellfish" })).status).toBe(200);
    expect((await api.post(`/users/${user}/memories/search`, { query: "Lyon", k: 1 })).status).toBe(200);
    expect((await api.post(`/memories/${b.id}/archive`, {})).status).toBe(200);

    const calls = () => stub.requests.filter((r) => r.path === "/v1/embeddings").length;
    const before = calls();
    const accessesBefore = (await api.get(`/memories/${a.id}/accesses`)).body.data.length;
    const countBefore = (await api.get(`/memories/${a.id}`)).body.access_count;
    const past = await api.post(`/users/${user}/memories/search?as_of=${encodeURIComponent(t1)}`, { query: "peanuts allergy", k: 5 });
    expect(past.status, JSON.stringify(past.body)).toBe(200);
    // The query and a's content of then were embedded (one call each), b's is the stored vector.
    expect(calls() - before).toBe(2);
    expect(past.body).toMatchObject({ retrieval_id: null, access_recorded: false, embedding_model: MODEL, as_of: t1 });
    // The live search of then: same memories, ranks, cosines and importances; the decay is
    // measured from t1 (the live search ran a few ms before it).
    expect(past.body.data.map((h: any) => [h.memory.id, h.memory.content, h.rank])).toEqual(live.body.data.map((h: any, i: number) => [h.memory.id, h.memory.content, i + 1]));
    past.body.data.forEach((h: any, i: number) => {
      const l = live.body.data[i];
      for (const k of ["cosine", "importance"]) expect(h.breakdown[k]).toBeCloseTo(l.breakdown[k], 12);
      expect(h.breakdown.time_decay).toBeCloseTo(l.breakdown.time_decay, 6);
      const days = (Date.parse(t1) - Date.parse(h.memory.last_accessed_at)) / 86_400_000;
      expect(h.breakdown.time_decay).toBeCloseTo(Math.exp(-days / 30), 12);
      expect(h.breakdown.matched_by).toEqual(l.breakdown.matched_by);
    });
    // Again: every text is in the cache now, no provider call.
    const again = await api.post(`/users/${user}/memories/search?as_of=${encodeURIComponent(t1)}`, { query: "peanuts allergy", k: 5 });
    expect(again.body.data).toEqual(past.body.data);
    expect(calls() - before).toBe(2);
    // As-of reads wrote nothing: no retrieval logged, no access counted.
    expect((await api.get(`/memories/${a.id}/accesses`)).body.data.length).toBe(accessesBefore);
    expect((await api.get(`/memories/${a.id}`)).body.access_count).toBe(countBefore);
    expect(past.body.data.find((h: any) => h.memory.id === a.id).memory).toMatchObject({ content: "Allergic to peanuts", access_count: 1, version: 1 });
  });

  it("reconstructed: false with the reason, when the history cannot say", async () => {
    const user = `asof-r-${randomUUID().slice(0, 8)}`;
    const kept = (await api.post(`/users/${user}/memories`, { memory_type: "fact", content: "Kept by Memscope" })).body;
    const outside = (await api.post(`/users/${user}/memories`, { memory_type: "fact", content: "Edited outside" })).body;
    const early = (await api.post(`/users/${user}/memories`, { memory_type: "fact", content: "Older than its history" })).body;
    const bumped = (await api.post(`/users/${user}/memories`, { memory_type: "fact", content: "Accessed outside the log" })).body;
    await sleep(5);
    const t = new Date().toISOString();
    await inDatabase(async (q) => {
      await q(`UPDATE memories SET content = 'Changed by hand', importance_score = 0.99 WHERE id = $1`, [outside.id]);
      await q(`DELETE FROM memory_events WHERE memory_id = $1`, [early.id]);
      await q(`UPDATE memories SET access_count = 7 WHERE id = $1`, [bumped.id]);
    });
    const r = await api.get(`/users/${user}/memories?status=all&as_of=${encodeURIComponent(t)}`);
    expect(r.status).toBe(200);
    const got = new Map<string, any>(r.body.data.map((m: any) => [m.id, m]));
    expect(got.get(kept.id)).toMatchObject({ reconstructed: true, reason: null, content: "Kept by Memscope" });
    expect(got.get(outside.id)).toMatchObject({ reconstructed: false, content: "Edited outside" });
    expect(got.get(outside.id).reason).toMatch(/changed outside Memscope .*\(content, importance_score\)/);
    expect(got.get(early.id)).toMatchObject({ reconstructed: false, content: "Older than its history" });
    expect(got.get(early.id).reason).toMatch(/no history recorded/);
    expect(got.get(bumped.id)).toMatchObject({ reconstructed: false, access_count: 0 });
    expect(got.get(bumped.id).reason).toMatch(/access_count \(7\).*retrieval log \(0 logged/);
    const one = await api.get(`/memories/${outside.id}?as_of=${encodeURIComponent(t)}`);
    expect(one.body).toMatchObject({ reconstructed: false, content: "Edited outside" });
  });

  it("400 naming as_of for a bad instant; a future instant reads as now; another project's memory is a 404 as any unknown id", async () => {
    const user = `asof-e-${randomUUID().slice(0, 8)}`;
    const m = (await api.post(`/users/${user}/memories`, { memory_type: "fact", content: "Speaks Basque" })).body;
    for (const bad of ["yesterday", "2026-13-01T00:00:00Z", "2026-11-25T10:00:00", ""]) {
      for (const r of [
        await api.get(`/users/${user}/memories?as_of=${encodeURIComponent(bad)}`),
        await api.get(`/memories/${m.id}?as_of=${encodeURIComponent(bad)}`),
        await api.post(`/users/${user}/memories/search?as_of=${encodeURIComponent(bad)}`, { query: "Basque" }),
      ]) {
        expect(r.status, bad).toBe(400);
        expect(r.body.error).toMatchObject({ code: "invalid_as_of", details: [{ field: "as_of" }] });
      }
    }
    const future = await api.get(`/memories/${m.id}?as_of=2999-01-01T00:00:00Z`);
    expect(future.status).toBe(200);
    expect(comparable({ ...future.body })).toEqual(comparable({ ...(await api.get(`/memories/${m.id}`)).body, relations: [] }));
    // Not alive then, unknown, another project's: one answer, naming only the id asked for.
    const notYet = await api.get(`/memories/${m.id}?as_of=2000-01-01T00:00:00Z`);
    expect(notYet.status).toBe(404);
    const unknownId = randomUUID();
    const unknown = await api.get(`/memories/${unknownId}?as_of=${encodeURIComponent(new Date().toISOString())}`);
    expect(unknown.status).toBe(404);
    expect(JSON.stringify(notYet.body).replaceAll(m.id, "ID")).toBe(JSON.stringify(unknown.body).replaceAll(unknownId, "ID"));
    const b = await owner.post("/projects", { name: `B ${user}` });
    const apiB = apiClient(server.url, { authorization: `Bearer ${await owner.key("b", ["read", "write"], b.id)}` });
    const cross = await apiB.get(`/memories/${m.id}?as_of=${encodeURIComponent(new Date().toISOString())}`);
    expect(cross.status).toBe(404);
    expect(JSON.stringify(cross.body).replaceAll(m.id, "ID")).toBe(JSON.stringify(unknown.body).replaceAll(unknownId, "ID"));
    expect((await apiB.get(`/users/${user}/memories?status=all&as_of=2999-01-01T00:00:00Z`)).body.data).toEqual([]);
    const search = await apiB.post(`/users/${user}/memories/search?as_of=2999-01-01T00:00:00Z`, { query: "Basque" });
    expect(search.status).toBe(200);
    expect(search.body.data).toEqual([]);
    expect((await api.get(`/users/${user}/memories?as_of=2000-01-01T00:00:00Z`)).body.data).toEqual([]);
  });
});
