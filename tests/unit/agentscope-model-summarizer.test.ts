import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { modelSummarizer } from "@/lib/strategies/agentscope/model-summarizer";
import type { SummaryRequest } from "@/lib/strategies/agentscope/state";
import { processSummaryCache, type SummaryCache, type SummaryKey } from "@/lib/strategies/agentscope/summary-cache";
import type { RoleMessage } from "@/lib/strategies/schemas";
import { freePort } from "../helpers/free-port";
import { startOpenAiStub, type OpenAiStub } from "../helpers/openai-stub";

// The chat model as AutoContextMemory's summarizer, against a local OpenAI-compatible stub:
// what goes over the wire, what comes back, errors, and the summary cache's key.

let stub: OpenAiStub;
let answer: (body: any) => unknown = () => "the summary";
beforeAll(async () => {
  stub = await startOpenAiStub({ chat: (body) => answer(body) });
});
afterAll(async () => stub?.stop());
beforeEach(() => {
  stub.requests.length = 0;
  answer = () => "the summary";
});

const u = (content: string): RoleMessage => ({ role: "user", content });
const req = (prompt: RoleMessage[], event: SummaryRequest["event"] = "TOOL_INVOCATION_COMPRESS"): SummaryRequest => ({ event, prompt, covered: { messages: 1, chars: 1 } });
function memCache() {
  const m = new Map<string, string>();
  const puts: { key: SummaryKey; summary: string; model: string }[] = [];
  const cache: SummaryCache = {
    async get(k) {
      return m.get(JSON.stringify(k));
    },
    async put(key, summary, model) {
      puts.push({ key, summary, model });
      m.set(JSON.stringify(key), summary);
    },
  };
  return { cache, puts };
}

describe("modelSummarizer: the request", () => {
  it("posts the model and the prompt as chat messages to <base>/v1/chat/completions and returns the answer", async () => {
    const { cache } = memCache();
    const s = modelSummarizer({ baseUrl: stub.url, model: "stub-chat" }, null, cache);
    const prompt = [u("Compress these."), { role: "assistant" as const, content: "plain answer" }, u("End.")];
    expect(await s.summarize(req(prompt))).toBe("the summary");
    expect(stub.requests).toEqual([{ path: "/v1/chat/completions", body: { model: "stub-chat", messages: prompt } }]);
    expect(s.counts).toEqual({ calls: 1, cached: 0 });
  });

  it("a tool call goes in OpenAI's function shape (empty text as null); its result stays a tool message", async () => {
    const { cache } = memCache();
    const s = modelSummarizer({ baseUrl: `${stub.url}/v1`, model: "stub-chat" }, null, cache);
    await s.summarize(
      req([
        u("Compress."),
        { role: "assistant", content: "", tool_calls: [{ id: "c1", name: "read_file", arguments: '{"p":1}' }] },
        { role: "tool", tool_call_id: "c1", content: "data" },
        { role: "assistant", content: "also", tool_calls: [{ id: "c2", name: "ls", arguments: "{}" }] },
      ]),
    );
    expect(stub.requests[0].path).toBe("/v1/chat/completions");
    expect(stub.requests[0].body.messages).toEqual([
      u("Compress."),
      { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "read_file", arguments: '{"p":1}' } }] },
      { role: "tool", tool_call_id: "c1", content: "data" },
      { role: "assistant", content: "also", tool_calls: [{ id: "c2", type: "function", function: { name: "ls", arguments: "{}" } }] },
    ]);
  });

  it("a tool result whose call is not in the prompt goes as user text (parts as JSON)", async () => {
    const { cache } = memCache();
    const s = modelSummarizer({ baseUrl: stub.url, model: "stub-chat" }, null, cache);
    await s.summarize(
      req([
        u("Summarize."),
        { role: "tool", tool_call_id: "gone", content: "big output" },
        { role: "tool", tool_call_id: "gone2", content: [{ type: "text", text: "t" }] },
        { role: "assistant", content: "x", tool_calls: [] },
      ]),
    );
    expect(stub.requests[0].body.messages).toEqual([
      u("Summarize."),
      { role: "user", content: "Tool result:\nbig output" },
      { role: "user", content: `Tool result:\n${JSON.stringify([{ type: "text", text: "t" }])}` },
      { role: "assistant", content: "x", tool_calls: [] },
    ]);
  });
});

describe("modelSummarizer: failures", () => {
  it("an error status is a ProviderError naming it with the start of the body", async () => {
    answer = () => {
      throw new Error("model overloaded ".repeat(30));
    };
    const s = modelSummarizer({ baseUrl: stub.url, model: "stub-chat" }, null, memCache().cache);
    const body = JSON.stringify({ error: { message: "model overloaded ".repeat(30) } });
    await expect(s.summarize(req([u("x")]))).rejects.toMatchObject({ name: "ProviderError", message: `Chat endpoint answered 500: ${body.slice(0, 300)}` });
    expect(body.length).toBeGreaterThan(300);
  });

  it("an unreachable endpoint is a ProviderError", async () => {
    const port = await freePort();
    const s = modelSummarizer({ baseUrl: `http://127.0.0.1:${port}`, model: "m" }, null, memCache().cache);
    await expect(s.summarize(req([u("x")]))).rejects.toMatchObject({ name: "ProviderError", message: expect.stringMatching(/^Chat endpoint unreachable: /) });
    expect(s.counts).toEqual({ calls: 1, cached: 0 });
  });

  it("nothing is cached when the call fails", async () => {
    answer = () => {
      throw new Error("down");
    };
    const { cache, puts } = memCache();
    const s = modelSummarizer({ baseUrl: stub.url, model: "stub-chat" }, null, cache);
    await expect(s.summarize(req([u("x")]))).rejects.toThrow();
    expect(puts).toEqual([]);
  });
});

describe("modelSummarizer: the cache", () => {
  it("the answer is stored with the model under (conversation, step, hash); the same request again is a hit, no call", async () => {
    const { cache, puts } = memCache();
    const s = modelSummarizer({ baseUrl: stub.url, model: "stub-chat" }, "conv-7", cache);
    s.setCall(3);
    await s.summarize(req([u("a")]));
    expect(puts).toEqual([{ key: { conversationId: "conv-7", step: 3, hash: expect.stringMatching(/^[0-9a-f]{64}$/) }, summary: "the summary", model: "stub-chat" }]);
    answer = () => "another answer";
    expect(await s.summarize(req([u("a")]))).toBe("the summary");
    expect(stub.requests).toHaveLength(1);
    expect(s.counts).toEqual({ calls: 1, cached: 1 });
    // Another step is another key.
    s.setCall(4);
    expect(await s.summarize(req([u("a")]))).toBe("another answer");
    expect(puts[1].key.step).toBe(4);
    expect(puts[1].key.hash).toBe(puts[0].key.hash);
    expect(s.counts).toEqual({ calls: 2, cached: 1 });
  });

  it("the hash covers the endpoint, the model, the event and the prompt, but not offload uuids", async () => {
    const hashOf = async (cfg: { baseUrl: string; model: string }, r: SummaryRequest) => {
      const { cache, puts } = memCache();
      await modelSummarizer(cfg, null, cache).summarize(r);
      return puts[0].key.hash;
    };
    const cfg = { baseUrl: stub.url, model: "stub-chat" };
    const tag = (uuid: string) => u(`earlier summary <!-- CONTEXT_OFFLOAD: uuid=${uuid} -->`);
    const base = await hashOf(cfg, req([tag("0a1b2c3d-0000-4000-8000-000000000001")]));
    expect(await hashOf(cfg, req([tag("ffffffff-1234-4abc-8def-0123456789ab")]))).toBe(base);
    expect(await hashOf(cfg, req([tag("0a1b2c3d-0000-4000-8000-00000000000")]))).not.toBe(base);
    expect(await hashOf(cfg, req([u("earlier summary <!-- CONTEXT_OFFLOAD: uuid=* -->")]))).toBe(base);
    expect(await hashOf({ ...cfg, model: "other" }, req([tag("0a1b2c3d-0000-4000-8000-000000000001")]))).not.toBe(base);
    expect(await hashOf({ ...cfg, baseUrl: `${stub.url}/` }, req([tag("0a1b2c3d-0000-4000-8000-000000000001")]))).not.toBe(base);
    expect(await hashOf(cfg, req([tag("0a1b2c3d-0000-4000-8000-000000000001")], "LARGE_MESSAGE_OFFLOAD"))).not.toBe(base);
    // Two tags in one prompt: both are left out.
    const two = (a: string, b: string) => req([u(`<!-- CONTEXT_OFFLOAD: uuid=${a} --> and <!-- CONTEXT_OFFLOAD: uuid=${b} -->`)]);
    expect(await hashOf(cfg, two("00000000-0000-4000-8000-000000000001", "00000000-0000-4000-8000-000000000002"))).toBe(
      await hashOf(cfg, two("00000000-0000-4000-8000-000000000009", "00000000-0000-4000-8000-000000000008")),
    );
  });

  it("without a cache argument this process's cache is used", async () => {
    const cfg = { baseUrl: stub.url, model: "stub-chat" };
    const prompt = [u(`process cache ${Math.random()}`)];
    await modelSummarizer(cfg, "p-conv").summarize(req(prompt));
    const again = modelSummarizer(cfg, "p-conv");
    expect(await again.summarize(req(prompt))).toBe("the summary");
    expect(again.counts).toEqual({ calls: 0, cached: 1 });
    expect(stub.requests).toHaveLength(1);
  });
});

describe("this process's summary cache", () => {
  it("keys by conversation, step and hash; holds 5 000 entries, the oldest going first", async () => {
    const key = (n: number, conversationId: string | null = "bound") => ({ conversationId, step: n % 7, hash: `h${n}` });
    await processSummaryCache.put(key(1, null), "pasted", "m");
    await processSummaryCache.put(key(1, "c"), "stored", "m");
    expect(await processSummaryCache.get(key(1, null))).toBe("pasted");
    expect(await processSummaryCache.get(key(1, "c"))).toBe("stored");
    expect(await processSummaryCache.get({ conversationId: "c", step: 2, hash: "h1" })).toBeUndefined();
    for (let n = 0; n < 5001; n++) await processSummaryCache.put(key(n), `s${n}`, "m");
    expect(await processSummaryCache.get(key(0))).toBeUndefined();
    // Entries written before this loop went first; of the loop's, only the first.
    expect(await processSummaryCache.get(key(10))).toBe("s10");
    expect(await processSummaryCache.get(key(5000))).toBe("s5000");
  });
});
