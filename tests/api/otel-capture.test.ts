import { gzipSync } from "node:zlib";
import { OTLPTraceExporter as JsonExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { OTLPTraceExporter as ProtoExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan, type SpanExporter } from "@opentelemetry/sdk-trace-base";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseServerTiming } from "@/lib/capture/stage-times";
import { apiClient } from "../helpers/api-client";
import { sharedProject, type SharedProject } from "../helpers/shared-app";
import type { Owner } from "../helpers/owner";
import { DATABASE_KINDS } from "../helpers/test-database";

// Live capture over OpenTelemetry (issue 25, part 2): the OpenTelemetry JS SDK's own OTLP
// exporters (JSON and protobuf, one gzip) send the GenAI chat spans of a small agent loop to
// the started server, configured as a user would (OTEL_EXPORTER_OTLP_ENDPOINT=<memscope>/api
// and OTEL_EXPORTER_OTLP_HEADERS); the spans arrive as turns with their exact prompts.

type Msg = { role: string; parts: { type: string; content: string }[] };
const text = (role: string, content: string): Msg => ({ role, parts: [{ type: "text", content }] });
const SYSTEM = "You are terse.";

/** A small agent loop: each turn sends the whole history so far (as many agents do) in one chat span. */
function agentLoop(service: string, conversationId: string | null, questions: string[], t0: number) {
  const memory = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ resource: resourceFromAttributes({ "service.name": service }), spanProcessors: [new SimpleSpanProcessor(memory)] });
  const tracer = provider.getTracer("agent-loop", "1.0.0");
  const history: Msg[] = [];
  const sent: Msg[][] = [];
  questions.forEach((q, i) => {
    history.push(text("user", q));
    const answer = `answer ${i + 1} to ${q}`;
    const input = [...history];
    sent.push(input);
    const span = tracer.startSpan("chat gpt-4o-mini", {
      startTime: new Date(t0 + i * 1000),
      attributes: {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "openai",
        "gen_ai.request.model": "gpt-4o-mini",
        ...(conversationId ? { "gen_ai.conversation.id": conversationId } : {}),
        "gen_ai.system_instructions": JSON.stringify([{ type: "text", content: SYSTEM }]),
        "gen_ai.input.messages": JSON.stringify(input),
        "gen_ai.output.messages": JSON.stringify([{ ...text("assistant", answer), finish_reason: "stop" }]),
        "gen_ai.usage.input_tokens": 10 * (i + 1),
        "gen_ai.usage.output_tokens": 5,
      },
    });
    span.end(new Date(t0 + i * 1000 + 400));
    history.push(text("assistant", answer));
  });
  // What else a traced agent emits: an HTTP client span and a tool execution. Capture ignores them.
  tracer.startSpan("POST /v1/chat/completions", { attributes: { "http.request.method": "POST" } }).end();
  tracer.startSpan("execute_tool weather", { attributes: { "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "weather" } }).end();
  return { spans: memory.getFinishedSpans() as ReadableSpan[], sent };
}

/** The exporter's own export: resolves with its result code (0 = SUCCESS). */
const exportWith = (exporter: SpanExporter, spans: ReadableSpan[]) =>
  new Promise<{ code: number; error?: Error }>((resolve) => exporter.export(spans, resolve));

describe.each(DATABASE_KINDS)("OTLP capture on %s", (kind) => {
  let server: SharedProject;
  let owner: Owner;
  let n = 0;
  const project = async (scopes = ["read", "write", "admin"]) => {
    const p = await owner.post("/projects", { name: `otel ${++n}` });
    const key = await owner.key(`k${n}`, scopes, p.id);
    return { key, api: apiClient(server.url, { authorization: `Bearer ${key}` }) };
  };
  const conversationNamed = async (api: ReturnType<typeof apiClient>, name: string) => {
    const list = await api.get(`/conversations?q=${encodeURIComponent(name)}`);
    expect(list.status).toBe(200);
    const found = list.body.data.filter((c: { name: string }) => c.name === name);
    expect(found).toHaveLength(1);
    return found[0];
  };

  beforeAll(async () => {
    server = await sharedProject(kind, "otel-capture");
    owner = server.owner;
  }, 240_000);
  afterAll(async () => server?.stop());

  it("the SDK's JSON and protobuf exporters: chat spans become turns with their exact prompts, once", async () => {
    const { key, api } = await project();
    // JSON, configured as the README says: the base endpoint (the exporter appends /v1/traces) and the key as an OTLP header.
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = `${server.url}/api`;
    process.env.OTEL_EXPORTER_OTLP_HEADERS = `Authorization=Bearer%20${key}`;
    // The first export starts the server's token workers: past the SDK's default 10 s on a loaded machine (it failed so once).
    process.env.OTEL_EXPORTER_OTLP_TIMEOUT = "60000";
    let json: JsonExporter;
    try {
      json = new JsonExporter();
    } finally {
      delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
      delete process.env.OTEL_EXPORTER_OTLP_HEADERS;
      delete process.env.OTEL_EXPORTER_OTLP_TIMEOUT;
    }
    // Protobuf, gzip, with the traces URL and headers given in code.
    const proto = new ProtoExporter({ url: `${server.url}/api/v1/traces`, headers: { authorization: `Bearer ${key}` }, compression: "gzip" as never, timeoutMillis: 60_000 });

    const t0 = Date.parse("2026-03-01T10:00:00.000Z");
    const a = agentLoop("support-bot", "conv-json", ["Hi — ça va? 🌍", "What is 2+2?", "Thanks"], t0);
    const b = agentLoop("support-bot", "conv-proto", ["Bonjour", "Weather?"], t0);
    const perTrace = agentLoop("support-bot", null, ["No conversation id here"], t0);
    expect((await exportWith(json, a.spans)).code).toBe(0);
    expect((await exportWith(proto, [...b.spans, ...perTrace.spans])).code).toBe(0);
    // An exporter retry: the same spans again change nothing.
    expect((await exportWith(json, a.spans)).code).toBe(0);
    expect((await exportWith(proto, b.spans)).code).toBe(0);

    for (const [name, run, questions] of [
      ["conv-json", a, ["Hi — ça va? 🌍", "What is 2+2?", "Thanks"]],
      ["conv-proto", b, ["Bonjour", "Weather?"]],
    ] as const) {
      const conv = await conversationNamed(api, name);
      expect(conv).toMatchObject({ app_id: "support-bot", turn_count: questions.length, branch_count: 1 });
      const msgs = (await api.get(`/conversations/${conv.id}/messages`)).body.data as { id: string; query: string; answer: string; created_at: string; parent_message_id: string | null }[];
      const oldestFirst = [...msgs].sort((x, y) => x.created_at.localeCompare(y.created_at));
      expect(oldestFirst.map((m) => [m.query, m.answer])).toEqual(questions.map((q, i) => [q, `answer ${i + 1} to ${q}`]));
      expect(oldestFirst.map((m) => m.parent_message_id)).toEqual([null, ...oldestFirst.slice(0, -1).map((m) => m.id)]);
      expect(oldestFirst.map((m) => m.created_at)).toEqual(questions.map((_, i) => new Date(t0 + i * 1000).toISOString()));

      const captures = await api.get(`/conversations/${conv.id}/captures`);
      expect(captures.status).toBe(200);
      expect(captures.body.data.map((c: { message_id: string; input_message_count: number; request_model: string }) => [c.message_id, c.input_message_count, c.request_model])).toEqual(
        oldestFirst.map((m, i) => [m.id, 2 * i + 1, "gpt-4o-mini"]),
      );
      const last = oldestFirst.at(-1)!;
      const svm = await api.get(`/conversations/${conv.id}/captures/${last.id}`);
      expect(svm.status).toBe(200);
      // The exact input messages the agent sent, and its system instructions.
      expect(svm.body.captured.input_messages).toEqual(run.sent.at(-1));
      expect(svm.body.captured.system_instructions).toEqual([{ type: "text", content: SYSTEM }]);
      expect(svm.body.captured.message_form).toBe("attributes");
    }

    // Without gen_ai.conversation.id: the span's trace is its conversation.
    const traceId = perTrace.spans[0].spanContext().traceId;
    const byTrace = await conversationNamed(api, `trace ${traceId}`);
    expect(byTrace.turn_count).toBe(1);
  });

  it("sent vs modelled is exact on a hand-made case: the agent keeps 6 messages, the profile 2", async () => {
    const { key, api } = await project();
    const profile = await api.post("/profiles/diff-bot/versions", {
      settings: { model: "gpt-4o-mini", system_prompt: SYSTEM, strategy: { type: "message_window", max_attached_message_count: 2 } },
      effective_from: "2020-01-01T00:00:00Z",
    });
    expect(profile.status).toBe(201);
    const run = agentLoop("diff-bot", "conv-diff", ["q1", "q2", "q3", "q4"], Date.parse("2026-03-02T10:00:00.000Z"));
    const proto = new ProtoExporter({ url: `${server.url}/api/v1/traces`, headers: { authorization: `Bearer ${key}` } });
    expect((await exportWith(proto, run.spans)).code).toBe(0);
    const conv = await conversationNamed(api, "conv-diff");
    const captures = (await api.get(`/conversations/${conv.id}/captures`)).body.data as { message_id: string }[];
    const r = await api.get(`/conversations/${conv.id}/captures/${captures[3].message_id}`);
    expect(r.status).toBe(200);
    expect(r.body.modelled.profile).toEqual({ source: "profile", app_id: "diff-bot", version: 1, effective_from: "2020-01-01T00:00:00.000Z" });
    expect(r.body.modelled.memories).toBe("no_end_user");
    const lines = (ls: { role: string; content: string; section: string }[]) => ls.map((l) => `${l.section}:${l.role}:${l.content}`);
    expect(lines(r.body.sent.messages)).toEqual([
      `system:system:${SYSTEM}`,
      "history:user:q1",
      "history:assistant:answer 1 to q1",
      "history:user:q2",
      "history:assistant:answer 2 to q2",
      "history:user:q3",
      "history:assistant:answer 3 to q3",
      "query:user:q4",
    ]);
    expect(lines(r.body.modelled.messages)).toEqual([`system:system:${SYSTEM}`, "history:user:q3", "history:assistant:answer 3 to q3", "query:user:q4"]);
    expect(r.body.diff).toEqual({
      summary: "Your agent keeps 6 messages, your profile says 2.",
      history: { sent: 6, modelled: 2, both: 2, sent_only: 4, modelled_only: 0 },
      system_matches: true,
      query_matches: true,
      rows: [
        { status: "sent_only", role: "user", content: "q1", sent_index: 1, modelled_index: null },
        { status: "sent_only", role: "assistant", content: "answer 1 to q1", sent_index: 2, modelled_index: null },
        { status: "sent_only", role: "user", content: "q2", sent_index: 3, modelled_index: null },
        { status: "sent_only", role: "assistant", content: "answer 2 to q2", sent_index: 4, modelled_index: null },
        { status: "both", role: "user", content: "q3", sent_index: 5, modelled_index: 1 },
        { status: "both", role: "assistant", content: "answer 3 to q3", sent_index: 6, modelled_index: 2 },
      ],
    });
    expect(r.body.modelled.tokens).toBeLessThan(r.body.sent.tokens);
  });

  it("sent vs modelled is a read: a profile that offloads, a conversation without end user, nothing stored", async () => {
    const { key, api } = await project();
    // summary_buffer from the second message on, offloading every kept message over 50 tokens.
    const profile = await api.post("/profiles/offload-bot/versions", {
      settings: { model: "gpt-4o-mini", system_prompt: SYSTEM, strategy: { type: "summary_buffer", msg_threshold: 1, last_keep: 10, offload_tokens: 50 } },
      effective_from: "2020-01-01T00:00:00Z",
    });
    expect(profile.status).toBe(201);
    const long = `Please remember all of this: ${Array.from({ length: 60 }, (_, i) => `item ${i} is blue`).join(", ")}.`;
    const run = agentLoop("offload-bot", "conv-offload", [long, "And now?"], Date.parse("2026-03-03T10:00:00.000Z"));
    const proto = new ProtoExporter({ url: `${server.url}/api/v1/traces`, headers: { authorization: `Bearer ${key}` } });
    expect((await exportWith(proto, run.spans)).code).toBe(0);
    const conv = await conversationNamed(api, "conv-offload");
    expect(conv.end_user_id ?? null).toBeNull();
    const captures = (await api.get(`/conversations/${conv.id}/captures`)).body.data as { message_id: string }[];
    const r = await api.get(`/conversations/${conv.id}/captures/${captures[1].message_id}`);
    expect(r.status).toBe(200);
    expect(r.body.modelled.memories).toBe("no_end_user");
    // The modelled prompt shows the offloads as POST /context would, refs and all
    const offloaded = (r.body.modelled.messages as { content: string }[]).map((m) => /\[Offloaded \d+ tokens; ref ([0-9a-f-]{36})\]/.exec(m.content)?.[1]).filter(Boolean);
    // (the long question, and the answer that repeats it)...
    expect(offloaded).toHaveLength(2);
    // ...but a GET stored nothing: no offloaded content under a placeholder user.
    for (const ref of offloaded) expect((await api.get(`/offloaded/${ref}`)).status).toBe(404);
  });

  it("bad OTLP: 400 naming the field, 413, 415, 401, 403; ignored and unreadable spans counted in partialSuccess", async () => {
    const { api, key } = await project();
    const post = (body: BodyInit, headers: Record<string, string>, auth = `Bearer ${key}`) =>
      fetch(`${server.url}/api/v1/traces`, { method: "POST", headers: { ...(auth ? { authorization: auth } : {}), ...headers }, body }).then(async (r) => ({
        status: r.status,
        type: r.headers.get("content-type"),
        timing: r.headers.get("server-timing"),
        body: r.headers.get("content-type")?.includes("json") ? await r.json() : new Uint8Array(await r.arrayBuffer()),
      }));
    const JSON_TYPE = { "content-type": "application/json" };
    const ids = { traceId: "5b8efff798038103d269b633813fc60c", spanId: "eee19b7ec3c1b174" };
    const chatSpan = (spanId: string, attrs: Record<string, string>) => ({
      traceId: ids.traceId,
      spanId,
      name: "chat",
      startTimeUnixNano: "1772359200000000000",
      endTimeUnixNano: "1772359201000000000",
      attributes: Object.entries({ "gen_ai.operation.name": "chat", "gen_ai.conversation.id": "conv-bad", ...attrs }).map(([k, v]) => ({ key: k, value: { stringValue: v } })),
    });
    const request = (spans: unknown[]) => JSON.stringify({ resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ scope: { name: "x" }, spans }] }] });

    const badId = await post(request([{ ...ids, traceId: "not-hex" }]), JSON_TYPE);
    expect(badId.status).toBe(400);
    expect(badId.body.error).toMatchObject({ code: "invalid_otlp", details: [{ field: "resourceSpans[0].scopeSpans[0].spans[0].traceId" }] });
    const badJson = await post("{", JSON_TYPE);
    expect(badJson.status).toBe(400);
    expect(badJson.body.error.details[0].field).toBe("body");
    // Protobuf: field 1 (resource_spans) says 10 bytes follow, 1 does.
    const cut = await post(Uint8Array.from([0x0a, 0x0a, 0x12]), { "content-type": "application/x-protobuf" });
    expect(cut.status).toBe(400);
    expect(cut.body.error).toMatchObject({ code: "invalid_otlp", details: [{ field: "resourceSpans[0]" }] });
    const notGzip = await post("plain", { ...JSON_TYPE, "content-encoding": "gzip" });
    expect(notGzip.status).toBe(400);
    expect(notGzip.body.error.details[0].field).toBe("content-encoding");
    expect((await post("{}", { "content-type": "text/plain" })).status).toBe(415);
    // Over the limit on the wire, and a gzip bomb over the limit once inflated.
    expect((await post(new Uint8Array(33 * 1024 * 1024), { "content-type": "application/x-protobuf" })).status).toBe(413);
    const bomb = await post(gzipSync(Buffer.alloc(70 * 1024 * 1024, 0x20)), { ...JSON_TYPE, "content-encoding": "gzip" });
    expect(bomb.status).toBe(413);
    expect(bomb.body.error.details[0].field).toBe("body (decompressed)");
    expect((await post(request([]), JSON_TYPE, "")).status).toBe(401);
    const reader = await project(["read"]);
    expect((await post(request([]), JSON_TYPE, `Bearer ${reader.key}`)).status).toBe(403);
    // Nothing was written by any of them.
    expect((await api.get("/conversations")).body.data).toEqual([]);

    // A valid request: one chat, one chat whose input is not JSON, one chat ending with the
    // model's answer (nothing new to ask), an embeddings span and a plain span.
    const ok = await post(
      request([
        chatSpan("0000000000000001", { "gen_ai.input.messages": JSON.stringify([text("user", "hello")]), "gen_ai.output.messages": JSON.stringify([text("assistant", "hi")]) }),
        chatSpan("0000000000000002", { "gen_ai.input.messages": "[{oops" }),
        chatSpan("0000000000000003", { "gen_ai.input.messages": JSON.stringify([text("user", "hello"), text("assistant", "hi")]) }),
        { ...ids, spanId: "0000000000000004", name: "embeddings", attributes: [{ key: "gen_ai.operation.name", value: { stringValue: "embeddings" } }] },
        { ...ids, spanId: "0000000000000005", name: "GET /", kind: 2 },
      ]),
      JSON_TYPE,
    );
    expect(ok.status).toBe(200);
    expect(ok.type).toContain("application/json");
    // Where the request's time went, by stage (bench:otel sums these).
    expect(Object.keys(parseServerTiming(ok.timing))).toEqual(["read", "decode", "classify", "tokens", "db"]);
    expect(ok.body.partialSuccess.rejectedSpans).toBe("3");
    expect(ok.body.partialSuccess.errorMessage).toContain("resourceSpans[0].scopeSpans[0].spans[1].attributes[gen_ai.input.messages]: not valid JSON");
    expect(ok.body.memscope).toMatchObject({
      spans: 5,
      turns_created: 2,
      duplicates: 0,
      ignored: 2,
      ignored_by_kind: { "gen_ai.operation.name=embeddings": 1, "not a GenAI span": 1 },
      rejected: [{ field: "resourceSpans[0].scopeSpans[0].spans[1].attributes[gen_ai.input.messages]", message: "not valid JSON" }],
    });
    // The protobuf answer: ExportTraceServiceResponse with partial_success.
    const protoAnswer = await post(new Uint8Array(0), { "content-type": "application/x-protobuf" });
    expect(protoAnswer).toMatchObject({ status: 200, type: "application/x-protobuf" });
    expect([...(protoAnswer.body as Uint8Array)]).toEqual([]);

    const conv = await conversationNamed(api, "conv-bad");
    const captured = (await api.get(`/conversations/${conv.id}/captures`)).body.data as { message_id: string }[];
    expect(captured).toHaveLength(2);
    // The turn with nothing new to ask has no query: there is no prompt to model (422).
    const empty = await api.get(`/conversations/${conv.id}/captures/${captured[1].message_id}`);
    expect(empty.status).toBe(422);
    expect(empty.body.error.details[0].field).toBe("message_id");

    // Another project sees none of it: the same answers as for ids that do not exist.
    const other = await project();
    expect((await other.api.get(`/conversations/${conv.id}/captures`)).status).toBe(404);
    expect((await other.api.get(`/conversations/${conv.id}/captures/${captured[0].message_id}`)).status).toBe(404);
    // A turn that was not captured.
    const plain = await api.post(`/conversations/${conv.id}/messages`, { query: "typed", answer: "by hand" });
    expect(plain.status).toBe(201);
    const notCaptured = await api.get(`/conversations/${conv.id}/captures/${plain.body.id}`);
    expect(notCaptured.status).toBe(404);
    expect(notCaptured.body.error.details[0].field).toBe("message_id");
  });
});
