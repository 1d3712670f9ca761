import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient } from "../helpers/api-client";
import type { AppServer } from "../helpers/app-server";
import { startOpenAiStub, hashedVector, type OpenAiStub } from "../helpers/openai-stub";
import { DATABASE_KINDS, openTestDatabase, type TestDatabase } from "../helpers/test-database";

// Memory evals with a configured chat model and embedding endpoint (a local stub of an
// OpenAI-compatible server): a benchmark import whose memories the chat model extracts, each
// with the turn it names as its source; a run refused while another run of the same set is
// in progress (409); and the endpoints failing (502), leaving no run behind.

const FIX = path.resolve(__dirname, "../fixtures/evals");

describe.each(DATABASE_KINDS)("evals with a chat model and an embedding endpoint on %s", (kind) => {
  let db: TestDatabase;
  let server: AppServer;
  let stub: OpenAiStub;
  let api: ReturnType<typeof apiClient>;
  let failChat = false;
  let failEmbed = false;
  /** While set, embedding requests wait for it (a run is held in progress). */
  let hold: Promise<void> | null = null;
  let n = 0;

  beforeAll(async () => {
    stub = await startOpenAiStub({
      // One memory per numbered turn, from its first words; and one naming a turn that does not exist.
      chat: (body) => {
        if (failChat) throw new Error("model overloaded");
        const prompt: string = body.messages[0].content;
        const turns = [...prompt.matchAll(/^\[(\d+)\] (?:User: )?(.+)$/gm)].map((m) => ({ turn: Number(m[1]), text: m[2] }));
        return { memories: [...turns.map((t) => ({ turn: t.turn, memory_type: "fact", content: `Said: ${t.text}`, importance_score: 0.7 })), { turn: 99, memory_type: "fact", content: "From nowhere" }] };
      },
      embed: async (input, body) => {
        if (hold) await hold;
        if (failEmbed) throw new Error("embedding model down");
        return input.map((t) => hashedVector(t, Number(body?.dimensions) || 8));
      },
    });
    db = await openTestDatabase(kind);
    server = await db.startApp({
      env: { MEMSCOPE_CHAT_BASE_URL: stub.url, MEMSCOPE_CHAT_MODEL: "stub-chat", MEMSCOPE_EMBEDDINGS_BASE_URL: stub.url, MEMSCOPE_EMBEDDINGS_MODEL: "stub-embed", MEMSCOPE_EMBEDDINGS_DIMENSIONS: "8" },
    });
    api = apiClient(server.url);
  }, 240_000);
  afterAll(async () => {
    await server?.stop();
    await db?.stop();
    await stub?.stop();
  });

  const upload = (setId: string, query: string, body: string) =>
    fetch(`${server.url}/api/v1/evals/sets/${setId}/import/upload?${query}`, { method: "POST", headers: { "content-type": "application/octet-stream" }, body });

  it("LongMemEval import with extraction chat: the model's memories keep the turn they name; a run finds the evidence; a failing model is a 502", async () => {
    const set = (await api.post("/evals/sets", { name: `chat ${++n}` })).body;
    const content = fs.readFileSync(path.join(FIX, "longmemeval-sample.json"), "utf8");
    const r = await api.post(`/evals/sets/${set.id}/import`, { format: "longmemeval", content, extraction: "chat", user_prefix: "chat" });
    expect(r.status).toBe(201);
    // Three sessions, four turns: one memory per turn (the one naming turn 99 is dropped).
    expect(r.body).toEqual({ cases: 2, skipped: 0, conversations: 3, turns: 4, memories: 4, dry_run: false, defects: [], defect_count: 0 });
    const mems = (await api.get(`/users/${encodeURIComponent("chat:e47becba")}/memories?limit=50`)).body.data as { content: string }[];
    expect(mems.map((m) => m.content).sort()).toEqual(["Said: Can you suggest a good road bike for commuting?", "Said: I graduated with a degree in Business Administration, and I am looking for jobs in marketing.", "Said: I ride about ten kilometres each way."]);
    const run = await api.post(`/evals/sets/${set.id}/runs`, { config: { k: 3 } });
    expect(run.status).toBe(201);
    const cases = (await api.get(`/evals/runs/${run.body.id}/cases`)).body.data as { question: string; hit: boolean; expected_ranks: { rank: number | null }[] }[];
    // The memory of the marked turn counts as the evidence: it came from that turn.
    expect(cases.find((c) => c.question === "What degree did I graduate with?")!.hit).toBe(true);

    failChat = true;
    try {
      const set2 = (await api.post("/evals/sets", { name: `chat ${++n}` })).body;
      // Other questions (sessions already imported are not sent to the model again).
      const other = content.replaceAll('"question_id": "', '"question_id": "down-');
      const bad = await api.post(`/evals/sets/${set2.id}/import`, { format: "longmemeval", content: other, extraction: "chat", user_prefix: "chat-down" });
      expect([bad.status, bad.body.error.code]).toEqual([502, "provider_error"]);
      const badUpload = await upload(set2.id, "format=longmemeval&extraction=chat&user_prefix=chat-down", other);
      expect([badUpload.status, ((await badUpload.json()) as { error: { code: string } }).error.code]).toEqual([502, "provider_error"]);
      expect((await api.get(`/evals/sets/${set2.id}`)).body.case_count).toBe(0);
    } finally {
      failChat = false;
    }
  });

  it("a run of a set while another run of it is in progress is a 409; the run in progress is shown nowhere until it ends", async () => {
    const user = `u-${++n}`;
    const mem = await api.post(`/users/${user}/memories`, { memory_type: "fact", content: "Keeps bees on the roof" });
    expect(mem.status).toBe(201);
    const set = (await api.post("/evals/sets", { name: `busy ${n}` })).body;
    await api.post(`/evals/sets/${set.id}/cases`, { cases: [{ user_id: user, question: "What does the user keep on the roof?", expected: { memory_ids: [mem.body.id] } }] });
    let release!: () => void;
    hold = new Promise<void>((r) => (release = r));
    const asked = stub.requests.length;
    const first = api.post(`/evals/sets/${set.id}/runs`, { config: { k: 3 } });
    try {
      // The first run is searching (its question's embedding is asked for).
      for (let i = 0; i < 200 && !stub.requests.slice(asked).some((q) => q.path === "/v1/embeddings"); i++) await new Promise((r) => setTimeout(r, 25));
      const second = await api.post(`/evals/sets/${set.id}/runs`, { config: { k: 3 } });
      expect([second.status, second.body.error.code]).toEqual([409, "eval_run_in_progress"]);
      expect((await api.get(`/evals/sets/${set.id}/runs`)).body.data).toEqual([]);
      expect((await api.get(`/evals/sets/${set.id}`)).body.run_count).toBe(0);
    } finally {
      hold = null;
      release();
    }
    const done = await first;
    expect(done.status).toBe(201);
    expect(done.body.metrics.overall.hit_rate.value).toBe(1);
    // Once it ended, the set runs again.
    expect((await api.post(`/evals/sets/${set.id}/runs`, { config: { k: 3 } })).status).toBe(201);
  });

  it("the embedding endpoint failing mid-run is a 502 and leaves no run (nor its cases) behind", async () => {
    const user = `u-${++n}`;
    const mem = await api.post(`/users/${user}/memories`, { memory_type: "fact", content: "Plays the cello on Sundays" });
    const set = (await api.post("/evals/sets", { name: `down ${n}` })).body;
    await api.post(`/evals/sets/${set.id}/cases`, { cases: [{ user_id: user, question: "Which instrument?", expected: { memory_ids: [mem.body.id] } }] });
    failEmbed = true;
    try {
      const r = await api.post(`/evals/sets/${set.id}/runs`, { config: { k: 3 } });
      expect([r.status, r.body.error.code]).toEqual([502, "provider_error"]);
    } finally {
      failEmbed = false;
    }
    expect((await api.get(`/evals/sets/${set.id}/runs`)).body.data).toEqual([]);
    // The failed run's row is gone, so the set is not held "in progress".
    const again = await api.post(`/evals/sets/${set.id}/runs`, { config: { k: 3 } });
    expect(again.status).toBe(201);
    expect((await api.get(`/evals/sets/${set.id}`)).body.run_count).toBe(1);
  });
});
