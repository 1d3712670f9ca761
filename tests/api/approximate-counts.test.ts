import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sharedProject, type SharedProject } from "../helpers/shared-app";

// A text with one "word" of hundreds of letters is counted in segments (bounded time), so
// its count is approximate: every answer that counts it says so, and ordinary text does not.
// Counting does not depend on the database: one (embedded) is enough here.

const LONG = "a".repeat(2_000);

describe("answers say when a token count is approximate", () => {
  let app: SharedProject;
  const post = async (path: string, body: unknown) => {
    const r = await fetch(`${app.url}/api/v1${path}`, { method: "POST", headers: { ...app.headers, "content-type": "application/json" }, body: JSON.stringify(body) });
    return { status: r.status, json: (await r.json()) as any };
  };
  const get = async (path: string) => (await fetch(`${app.url}/api/v1${path}`, { headers: app.headers })).json() as Promise<any>;

  beforeAll(async () => {
    app = await sharedProject("embedded", "approximate-counts");
  });
  afterAll(() => app?.stop());

  it("/window: exact for prose with gpt-4o, approximate with a 2,000-letter word, approximate for a stand-in tokenizer", async () => {
    const window = (content: string, model = "gpt-4o") =>
      post("/window", { model, messages: [{ role: "user", content }], strategy: { type: "token_buffer", max_token_limit: 100_000 } });
    const prose = await window("The quick brown fox jumps over the lazy dog.");
    expect(prose.status).toBe(200);
    expect(prose.json.approximate).toBe(false);
    expect((await window(`see ${LONG} here`)).json.approximate).toBe(true);
    expect((await window("plain words", "claude-sonnet-4")).json.approximate).toBe(true);
  });

  it("/history and /context: approximate exactly when a kept turn holds the long word", async () => {
    const conv = await post("/conversations", { app_id: "approx", end_user_id: "u1", name: "long words" });
    const id = conv.json.id;
    await post(`/conversations/${id}/messages`, { query: "hello there", answer: "hi" });
    expect((await get(`/conversations/${id}/history?model=gpt-4o&max_token_limit=100000`)).approximate).toBe(false);
    const ctx = (q: string) => post("/context", { user_id: "u1", conversation_id: id, query: q, model: "gpt-4o", strategy: { type: "token_buffer", max_token_limit: 100_000 } });
    expect((await ctx("what did I say?")).json.approximate).toBe(false);
    await post(`/conversations/${id}/messages`, { query: `paste: ${LONG}`, answer: "that is long" });
    expect((await get(`/conversations/${id}/history?model=gpt-4o&max_token_limit=100000`)).approximate).toBe(true);
    // A budget that keeps only a newer, ordinary turn: the long word is not sent, so the count is exact.
    await post(`/conversations/${id}/messages`, { query: "short again", answer: "ok" });
    expect((await get(`/conversations/${id}/history?model=gpt-4o&max_token_limit=30`)).approximate).toBe(false);
    expect((await ctx("and now?")).json.approximate).toBe(true);
  });
});
