import { until } from "../helpers/wait-until";
import { randomUUID } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { apiClient } from "../helpers/api-client";
import type { AppServer } from "../helpers/app-server";
import { lexicalRow, openDirect, writeLexicalMemories } from "../helpers/lexical-memories";
import { hashedVector, startOpenAiStub, type OpenAiStub } from "../helpers/openai-stub";
import { sharedProject } from "../helpers/shared-app";
import { DATABASE_KINDS, openTestDatabase, type DatabaseKind, type TestDatabase } from "../helpers/test-database";
import { LOADED_MACHINE_TIMEOUT_MS } from "../helpers/loaded-machine";

/** This file's polls: up to 60_000 ms, every 150 ms. */
const waitFor = <T>(what: string, fn: () => Promise<T>, ok: (v: T) => boolean) => until(what, fn, ok, 60_000, 150);

// Changing the embedding model: a second server on the same database, configured
// with an OpenAI-compatible endpoint (a local stub), re-embeds every memory in the
// background, resumes after a restart, keeps retrieval on the old model until done.

const USER = "reembed-user";
const MODEL = "stub-embed-8";
const LEXICAL = "lexical-hash-v1";

const TEXTS = [
  "Prefers dark roast coffee without sugar",
  "Lives in Lisbon near the river",
  "Writes TypeScript every day at work",
  "Allergic to peanuts and tree nuts",
  "Usually goes running on Sunday mornings",
  "Is learning to play the cello",
  "Prefers window seats on long flights",
  "Has a cat named Miso",
  "Reviews pull requests before lunch",
  "Knows how to tune PostgreSQL autovacuum",
  "Likes sci-fi novels by Ursula Le Guin",
  "Bakes sourdough bread on weekends",
];
const TYPES = ["preference", "fact", "skill", "pattern"] as const;

const stubEnv = (stub: OpenAiStub, extra: Record<string, string> = {}) => ({
  MEMSCOPE_EMBEDDINGS_BASE_URL: stub.url,
  MEMSCOPE_EMBEDDINGS_MODEL: MODEL,
  MEMSCOPE_EMBEDDINGS_DIMENSIONS: "8",
  ...extra,
});

/** Texts the stub was asked to embed (every /v1/embeddings request, in order). */
const embedded = (stub: OpenAiStub) => stub.requests.filter((r) => r.path === "/v1/embeddings").flatMap((r) => r.body.input as string[]);

/**
 * A project's first server on the lexical model, through the API as a user would: nothing
 * configured, no job; memories written and searched on lexical, which the first search records
 * as the active model. On this worker's shared server (a project of this file's own, fresh, so
 * nothing recorded yet): the tests below start their own servers for their model settings, and
 * write the same store through SQL (seedLexicalDirect) instead of a server start each.
 */
async function firstServerOnLexical(kind: DatabaseKind, texts: string[]) {
  const p = await sharedProject(kind, "embeddings");
  const api = apiClient(p.url, p.headers);
  const st = await api.get("/embeddings/status");
  expect(st.status).toBe(200);
  expect(st.body.configured_model).toEqual({ model: LEXICAL, dimensions: 256, kind: "lexical" });
  expect(st.body.job).toBeNull();
  for (const [i, content] of texts.entries()) {
    const r = await api.post(`/users/${USER}/memories`, { memory_type: TYPES[i % 4], content });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
  }
  const s = await api.post(`/users/${USER}/memories/search`, { query: "coffee roast", dry_run: true });
  expect(s.status).toBe(200);
  expect(s.body.embedding_model).toBe(LEXICAL);
  expect(s.body.data[0].memory.content).toBe(TEXTS[0]);
  const after = await api.get("/embeddings/status");
  expect(after.body.active_model).toEqual({ model: LEXICAL, dimensions: 256, kind: "lexical" });
}

/**
 * The same store written through SQL (memories with their lexical vectors, lexical the active
 * model), for the tests whose subject starts after it: a server start less each (about 5
 * CPU-seconds). firstServerOnLexical writes such a store through the API, as a user would.
 */
async function seedLexicalDirect(db: TestDatabase, texts: string[]) {
  const direct = await openDirect(db);
  try {
    await writeLexicalMemories(direct, [[USER, texts.map((t) => lexicalRow(randomUUID(), t))]]);
  } finally {
    await direct.close();
  }
}

describe.each(DATABASE_KINDS)("re-embedding when the embedding model changes on %s", (kind: DatabaseKind) => {
  const dbs: TestDatabase[] = [];
  const servers: AppServer[] = [];
  const stubs: OpenAiStub[] = [];
  afterAll(async () => {
    for (const s of servers) await s.stop().catch(() => {});
    for (const s of stubs) await s.stop().catch(() => {});
    for (const d of dbs) await d.stop().catch(() => {});
  });

  it("a project's first server: lexical configured, no job; memories written and searched on lexical, which becomes the active model", async () => {
    await firstServerOnLexical(kind, TEXTS);
  });

  it("re-embeds in the background, serves the old model meanwhile, resumes after a restart, then switches", { timeout: 240_000 }, async () => {
    const db = await openTestDatabase(kind);
    dbs.push(db);
    await seedLexicalDirect(db, TEXTS);

    // Server B: pages of 5. The first page is embedded at once; the second waits
    // until the test opens the gate, so the job is observably half done.
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let pages = 0;
    const stubB = await startOpenAiStub({
      embed: async (input, body) => {
        if (input.length > 1 && ++pages > 1) await gate;
        return input.map((t) => hashedVector(t, Number(body.dimensions) || 8));
      },
    });
    stubs.push(stubB);
    // On PostgreSQL a restarted instance cannot tell a stopped one from a live one but by its
    // lease running out (tests/api/two-instances.test.ts): a short lease keeps this test quick.
    const lease = { MEMSCOPE_REEMBED_PAGE_SIZE: "5", MEMSCOPE_REEMBED_LEASE_MS: "3000" };
    const b = await db.startApp({ env: stubEnv(stubB, lease) });
    servers.push(b);
    const apiB = apiClient(b.url);

    // Started on its own at start-up: no POST needed.
    const half = await waitFor("first page", () => apiB.get("/embeddings/status"), (r) => r.body.job?.done === 5);
    expect(half.body.job).toMatchObject({ model: MODEL, dimensions: 8, status: "running", total: 12, done: 5, error: null, running_here: true });
    expect(half.body.active_model).toEqual({ model: LEXICAL, dimensions: 256, kind: "lexical" });
    expect(half.body.configured_model).toEqual({ model: MODEL, dimensions: 8, kind: "openai-compatible" });
    const checkpoint: string = half.body.job.last_memory_id;
    expect(checkpoint).toMatch(/^[0-9a-f-]{36}$/);

    // Retrieval still reads the old model's vectors.
    const during = await apiB.post(`/users/${USER}/memories/search`, { query: "coffee roast", dry_run: true });
    expect(during.status).toBe(200);
    expect(during.body.embedding_model).toBe(LEXICAL);
    expect(during.body.data[0].memory.content).toBe(TEXTS[0]);

    // A write during the job embeds with both models.
    const extra = "Drinks green tea in the afternoon";
    const created = await apiB.post(`/users/${USER}/memories`, { memory_type: "pattern", content: extra });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(embedded(stubB)).toContain(extra);

    // POST /reembed while it runs: the same job, still 202.
    const again = await apiB.post("/embeddings/reembed");
    expect(again.status).toBe(202);
    expect(again.body.started).toBe(true);
    expect(again.body.job.id).toBe(half.body.job.id);

    const listed = await apiB.get(`/users/${USER}/memories?limit=100&status=all`);
    const list = listed.body.data as { id: string; content: string }[];
    expect(list).toHaveLength(13);

    // Restart in the middle of the job (page 2 is in flight).
    await b.stop();
    release();

    const stubC = await startOpenAiStub();
    stubs.push(stubC);
    const c = await db.startApp({ env: stubEnv(stubC, lease) });
    servers.push(c);
    const apiC = apiClient(c.url);
    const done = await waitFor("job done", () => apiC.get("/embeddings/status"), (r) => ["done", "failed", "cancelled"].includes(r.body.job?.status));
    // The total counts the memory B wrote during the job. It once ended at 12/12 under load: C's
    // start found B's lease live, started a runner anyway, and that runner's claim came after
    // the lease ran out, without counting again. On failure, the logs say who ran what.
    expect(done.body.job, `job ${JSON.stringify(done.body.job)}\n--- B:\n${b.logs()}\n--- C:\n${c.logs()}`).toMatchObject({ status: "done", model: MODEL, total: 13, done: 13, error: null });
    expect(done.body.active_model).toEqual({ model: MODEL, dimensions: 8, kind: "openai-compatible" });

    // Resumed after the checkpoint: the first page was not embedded again.
    const expected = list.filter((m) => m.id > checkpoint).map((m) => m.content).sort();
    expect([...embedded(stubC)].sort()).toEqual(expected);
    expect(expected.length).toBeLessThan(13);

    const sent = embedded(stubC).length;
    const after = await apiC.post(`/users/${USER}/memories/search`, { query: extra, dry_run: true });
    expect(after.status).toBe(200);
    expect(after.body.embedding_model).toBe(MODEL);
    expect(after.body.embedding_kind).toBe("openai-compatible");
    expect(after.body.data[0].memory.content).toBe(extra);
    expect(embedded(stubC).slice(sent)).toEqual([extra]); // the query, embedded with the new model
    const vectorHits = (after.body.data as { breakdown: { matched_by: string[] } }[]).filter((h) => h.breakdown.matched_by.includes("vector"));
    expect(vectorHits.length).toBeGreaterThanOrEqual(10);

    // Nothing left to do: 200, not started.
    const idle = await apiC.post("/embeddings/reembed");
    expect(idle.status).toBe(200);
    expect(idle.body.started).toBe(false);
    await c.stop();
  });

  it("a failing provider fails the job with its error; search keeps the old model; POST /reembed retries", { timeout: 180_000 }, async () => {
    const db = await openTestDatabase(kind);
    dbs.push(db);
    await seedLexicalDirect(db, TEXTS.slice(0, 4));

    const stub = await startOpenAiStub({
      embed: () => {
        throw new Error("model overloaded");
      },
    });
    stubs.push(stub);
    const s = await db.startApp({ env: stubEnv(stub) });
    servers.push(s);
    const api = apiClient(s.url);
    const failed = await waitFor("job failed", () => api.get("/embeddings/status"), (r) => r.body.job?.status === "failed");
    expect(failed.body.job.error).toMatch(/answered 500/);
    expect(failed.body.job.error).toMatch(/model overloaded/);
    expect(failed.body.job).toMatchObject({ model: MODEL, total: 4, done: 0, running_here: false });
    expect(failed.body.active_model.model).toBe(LEXICAL);

    const q = await api.post(`/users/${USER}/memories/search`, { query: "coffee", dry_run: true });
    expect(q.status).toBe(200);
    expect(q.body.embedding_model).toBe(LEXICAL);
    expect(q.body.data[0].memory.content).toBe(TEXTS[0]);

    // Retry while the provider is still broken, now answering one vector short: the same job
    // leaves `failed`, asks the provider again, and fails again with the new error.
    // The provider holds its answer until the POST's own answer is read: otherwise a quick
    // failure can land before the route reads the job back (a CI run saw "failed" there).
    const asked = embedded(stub).length;
    let answer!: () => void;
    const held = new Promise<void>((r) => (answer = r));
    stub.set({
      embed: async (input, body) => {
        await held;
        return input.slice(1).map((t) => hashedVector(t, Number(body.dimensions) || 8));
      },
    });
    const retry = await api.post("/embeddings/reembed");
    answer();
    expect(retry.status).toBe(202);
    expect(retry.body.started).toBe(true);
    expect(retry.body.job.id).toBe(failed.body.job.id);
    expect(["pending", "running"]).toContain(retry.body.job.status);
    expect(retry.body.job.error).toBeNull();
    const again = await waitFor("failed again", () => api.get("/embeddings/status"), (r) => r.body.job?.status === "failed" && !r.body.job.running_here);
    expect(again.body.job.error).toMatch(/returned 3 vectors for 4 inputs/);
    expect(again.body.job).toMatchObject({ id: failed.body.job.id, done: 0 });
    expect(embedded(stub).length).toBeGreaterThan(asked);
    expect(again.body.active_model.model).toBe(LEXICAL);

    // The provider recovers: the retry completes and search switches.
    stub.set({ embed: undefined });
    const ok = await api.post("/embeddings/reembed");
    expect(ok.status).toBe(202);
    const done = await waitFor("job done", () => api.get("/embeddings/status"), (r) => r.body.job?.status === "done");
    expect(done.body.job).toMatchObject({ id: failed.body.job.id, total: 4, done: 4, error: null });
    const q2 = await api.post(`/users/${USER}/memories/search`, { query: "coffee", dry_run: true });
    expect(q2.body.embedding_model).toBe(MODEL);
    await s.stop();
  });

  it("an empty store switches to the configured model at once", { timeout: LOADED_MACHINE_TIMEOUT_MS }, async () => {
    const db = await openTestDatabase(kind);
    dbs.push(db);
    // Lexical recorded as the active model with no memory: what a first server's search leaves
    // (firstServerOnLexical shows a server records it), written through SQL.
    await seedLexicalDirect(db, []);
    const stub = await startOpenAiStub();
    stubs.push(stub);
    const s = await db.startApp({ env: stubEnv(stub) });
    servers.push(s);
    const api = apiClient(s.url);
    const st = await waitFor("switched", () => api.get("/embeddings/status"), (r) => r.body.active_model?.model === MODEL);
    expect(st.body.job).toBeNull();
    const spec = await api.get("/openapi.json");
    expect(spec.body.paths["/embeddings/status"].get).toBeTruthy();
    expect(spec.body.paths["/embeddings/reembed"].post.responses).toHaveProperty("202");
    expect(spec.body.paths["/embeddings/reembed"].post.responses).toHaveProperty("409");
    await s.stop();
  });

  it("configuring another model cancels the unfinished job; a misconfigured provider is a 409 on writes and re-embedding", { timeout: 400_000 }, async () => {
    const db = await openTestDatabase(kind);
    dbs.push(db);
    await seedLexicalDirect(db, TEXTS.slice(0, 4));

    // A provider that never answers: the job stays running until the server stops.
    const stub = await startOpenAiStub({ embed: () => new Promise<number[][]>(() => {}) });
    stubs.push(stub);
    const b = await db.startApp({ env: stubEnv(stub) });
    servers.push(b);
    const running = await waitFor("job running", () => apiClient(b.url).get("/embeddings/status"), (r) => r.body.job?.status === "running" && r.body.job.running_here);
    await b.stop();

    // Back on the lexical model: the job towards the stub model is cancelled, nothing switches.
    const c = await db.startApp();
    servers.push(c);
    const apiC = apiClient(c.url);
    const cancelled = await waitFor("job cancelled", () => apiC.get("/embeddings/status"), (r) => r.body.job?.status === "cancelled");
    expect(cancelled.body.job).toMatchObject({ id: running.body.job.id, model: MODEL, status: "cancelled", done: 0, running_here: false });
    expect(cancelled.body.job.error).toMatch(/configured model changed/);
    expect(cancelled.body.job.finished_at).not.toBeNull();
    expect(cancelled.body.active_model.model).toBe(LEXICAL);
    const idle = await apiC.post("/embeddings/reembed");
    expect(idle.status).toBe(200);
    expect(idle.body).toMatchObject({ started: false, job: { id: running.body.job.id, status: "cancelled" } });
    await c.stop();

    // An endpoint and model without a valid vector size: writes and re-embedding answer 409
    // embeddings_misconfigured; reads keep working on the active model.
    const d = await db.startApp({ env: stubEnv(stub, { MEMSCOPE_EMBEDDINGS_DIMENSIONS: "0" }) });
    servers.push(d);
    const apiD = apiClient(d.url);
    const st = await apiD.get("/embeddings/status");
    expect(st.body).toMatchObject({ configured_model: null, active_model: { model: LEXICAL } });
    expect(st.body.configuration_error).toMatch(/MEMSCOPE_EMBEDDINGS_DIMENSIONS/);
    const write = await apiD.post(`/users/${USER}/memories`, { memory_type: "fact", content: "Will not be saved" });
    expect(write.status).toBe(409);
    expect(write.body.error.code).toBe("embeddings_misconfigured");
    const re = await apiD.post("/embeddings/reembed");
    expect(re.status).toBe(409);
    expect(re.body.error.code).toBe("embeddings_misconfigured");
    const read = await apiD.post(`/users/${USER}/memories/search`, { query: "coffee", dry_run: true });
    expect(read.status).toBe(200);
    expect(read.body.embedding_model).toBe(LEXICAL);
    const listed = await apiD.get(`/users/${USER}/memories?limit=100`);
    expect(listed.body.data.map((m: { content: string }) => m.content)).not.toContain("Will not be saved");
    await d.stop();
  });
});
