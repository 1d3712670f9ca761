import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient } from "../helpers/api-client";
import type { AppServer } from "../helpers/app-server";
import { DATABASE_KINDS, startAppOn } from "../helpers/test-database";
import { startOpenAiStub, type OpenAiStub } from "../helpers/openai-stub";

// save_memory with a chat model configured: the model decides replace / merge /
// keep_both for a near duplicate (a local stub stands in for the endpoint).

describe.each(DATABASE_KINDS)("save with dedupe decided by a chat model on %s", (kind) => {
  let stub: OpenAiStub;
  let server: AppServer;
  let api: ReturnType<typeof apiClient>;
  beforeAll(async () => {
    stub = await startOpenAiStub();
    server = await startAppOn(kind, { env: { MEMSCOPE_CHAT_BASE_URL: stub.url, MEMSCOPE_CHAT_MODEL: "stub-chat" } });
    api = apiClient(server.url);
  });
  afterAll(async () => {
    await server?.stop();
    await stub?.stop();
  });

  const pair = async (decision: unknown) => {
    const u = `u-${randomUUID().slice(0, 8)}`;
    const first = await api.post(`/users/${u}/memories`, { memory_type: "preference", content: "Wants weekly exports every Monday at 07:00" });
    stub.set({ chat: () => decision });
    const second = await api.post(`/users/${u}/memories`, { memory_type: "preference", content: "Wants weekly exports every Monday at 7:00", dedupe_threshold: 0.8, importance_score: 0.9 });
    return { u, first: first.body, second };
  };

  it("replace: the existing memory takes the new content; no new row", async () => {
    const { u, first, second } = await pair({ action: "replace", reason: "newer wording" });
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ id: first.id, content: "Wants weekly exports every Monday at 7:00", importance_score: 0.9, version: 2 });
    expect(second.body.dedupe).toMatchObject({ action: "replaced", similar_id: first.id, reason: "newer wording" });
    expect((await api.get(`/users/${u}/memories`)).body.data).toHaveLength(1);
    const history = (await api.get(`/memories/${first.id}/history`)).body.data;
    expect(history[0]).toMatchObject({ event_type: "dedupe", actor: "system" });
    expect(history[0].reason).toContain("replace");
    // The prompt is the design doc's, with both contents.
    const prompt = stub.requests.at(-1)!.body.messages[0].content as string;
    expect(prompt).toContain("Wants weekly exports every Monday at 07:00");
    expect(prompt).toContain("keep_both");
  });

  it("merge: the existing memory takes the merged content", async () => {
    const { first, second } = await pair({ action: "merge", reason: "same schedule", merged_content: "Wants weekly exports on Mondays at 07:00 (Berlin time)" });
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ id: first.id, content: "Wants weekly exports on Mondays at 07:00 (Berlin time)" });
    expect(second.body.dedupe.action).toBe("merged");
  });

  it("keep_both: a new row", async () => {
    const { u, first, second } = await pair({ action: "keep_both", reason: "different" });
    expect(second.status).toBe(201);
    expect(second.body.id).not.toBe(first.id);
    expect(second.body.dedupe).toMatchObject({ action: "kept_both", similar_id: first.id });
    expect((await api.get(`/users/${u}/memories`)).body.data).toHaveLength(2);
  });

  it("a failing or malformed chat answer is a 502 and writes nothing", async () => {
    const u = `u-${randomUUID().slice(0, 8)}`;
    await api.post(`/users/${u}/memories`, { memory_type: "fact", content: "Timezone is Europe/Berlin" });
    stub.set({ chat: () => { throw new Error("model overloaded"); } });
    const r = await api.post(`/users/${u}/memories`, { memory_type: "fact", content: "Timezone is Europe / Berlin (CET)", dedupe_threshold: 0.8 });
    expect(r.status).toBe(502);
    expect(r.body.error.code).toBe("provider_error");
    stub.set({ chat: () => ({ action: "shrug" }) });
    expect((await api.post(`/users/${u}/memories`, { memory_type: "fact", content: "Timezone is Europe / Berlin (CET)", dedupe_threshold: 0.8 })).status).toBe(502);
    expect((await api.get(`/users/${u}/memories`)).body.data).toHaveLength(1);
  });
});
