import { JsonTraceSerializer, ProtobufTraceSerializer } from "@opentelemetry/otlp-transformer";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { describe, expect, it } from "vitest";
import { readGenAiSpan } from "@/lib/capture/genai-span";
import { decodeTracesJson } from "@/lib/capture/otlp-json";
import { decodeTracesProto, encodeTraceResponseProto } from "@/lib/capture/otlp-proto";
import { OtlpProblem, type OtlpSpan } from "@/lib/capture/otlp-types";
import { promptDiff } from "@/lib/capture/prompt-diff";
import type { PromptLine } from "@/lib/capture/schemas";
import { parseServerTiming, StageTimes } from "@/lib/capture/stage-times";
import { byJsonSize } from "@/lib/capture/store-captures";

// The OTLP decoders against the OpenTelemetry JS SDK's own serializers (the bytes its
// exporters send), and the GenAI span mapping and prompt diff on hand-made cases.

const INPUT = [
  { role: "user", parts: [{ type: "text", content: "Hi — ça va? 🌍" }] },
  { role: "assistant", parts: [{ type: "text", content: "Fine." }] },
  { role: "user", parts: [{ type: "text", content: "Weather in Paris?" }] },
];
const OUTPUT = [{ role: "assistant", parts: [{ type: "tool_call", id: "c1", name: "weather", arguments: { city: "Paris" } }], finish_reason: "tool_call" }];

function sdkSpans() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ resource: resourceFromAttributes({ "service.name": "weather-bot" }), spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const tracer = provider.getTracer("t");
  const chat = tracer.startSpan("chat gpt-4o", {
    attributes: {
      "gen_ai.operation.name": "chat",
      "gen_ai.request.model": "gpt-4o",
      "gen_ai.conversation.id": "conv-1",
      "gen_ai.input.messages": JSON.stringify(INPUT),
      "gen_ai.output.messages": JSON.stringify(OUTPUT),
      "gen_ai.system_instructions": JSON.stringify([{ type: "text", content: "Be brief." }]),
      "gen_ai.usage.input_tokens": 42,
      "gen_ai.usage.output_tokens": 7,
      "some.double": 1.5,
      "some.bool": true,
      "some.list": ["a", "b"],
    },
    startTime: [1_700_000_000, 123_000_000],
  });
  chat.addEvent("note", { k: "v" });
  chat.end([1_700_000_001, 0]);
  tracer.startSpan("GET /", { attributes: { "http.method": "GET" } }).end();
  tracer.startSpan("embeddings", { attributes: { "gen_ai.operation.name": "embeddings" } }).end();
  return exporter.getFinishedSpans();
}

describe("OTLP decoding", () => {
  const spans = sdkSpans();
  for (const [name, decode] of [
    ["protobuf", () => decodeTracesProto(ProtobufTraceSerializer.serializeRequest(spans)!)],
    ["json", () => decodeTracesJson(JSON.parse(new TextDecoder().decode(JsonTraceSerializer.serializeRequest(spans)!)))],
  ] as const) {
    it(`reads what the SDK's ${name} serializer writes`, () => {
      const t = decode();
      expect(t.spanCount).toBe(3);
      expect(t.resourceSpans[0].resource["service.name"]).toBe("weather-bot");
      const s = t.resourceSpans[0].spans[0];
      expect(s.traceId).toBe(spans[0].spanContext().traceId);
      expect(s.spanId).toBe(spans[0].spanContext().spanId);
      expect(s.name).toBe("chat gpt-4o");
      expect(s.startTimeUnixNano).toBe(1_700_000_000_123_000_000n);
      expect(s.endTimeUnixNano).toBe(1_700_000_001_000_000_000n);
      expect(s.attributes["gen_ai.input.messages"]).toBe(JSON.stringify(INPUT));
      expect(s.attributes["gen_ai.usage.input_tokens"]).toBe(42);
      expect(s.attributes["some.double"]).toBe(1.5);
      expect(s.attributes["some.bool"]).toBe(true);
      expect(s.attributes["some.list"]).toEqual(["a", "b"]);
      expect(s.events).toEqual([{ name: "note", timeUnixNano: expect.any(BigInt), attributes: { k: "v" } }]);
      expect(s.path).toBe("resourceSpans[0].scopeSpans[0].spans[0]");
    });
  }

  it("names the field of a malformed request", () => {
    const bad = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        if (e instanceof OtlpProblem) return e.field;
        throw e;
      }
      return "no error";
    };
    expect(bad(() => decodeTracesJson({ resourceSpans: {} }))).toBe("resourceSpans");
    expect(bad(() => decodeTracesJson({ resourceSpans: [{ scopeSpans: [{ spans: [{ traceId: "xyz", spanId: "0102030405060708" }] }] }] }))).toBe(
      "resourceSpans[0].scopeSpans[0].spans[0].traceId",
    );
    expect(
      bad(() => decodeTracesJson({ resourceSpans: [{ scopeSpans: [{ spans: [{ traceId: "0102030405060708090a0b0c0d0e0f10", spanId: "0102030405060708", startTimeUnixNano: "soon" }] }] }] })),
    ).toBe("resourceSpans[0].scopeSpans[0].spans[0].startTimeUnixNano");
    expect(bad(() => decodeTracesJson({ resourceSpans: [{ scopeSpans: [{ spans: [{ traceId: "0102030405060708090a0b0c0d0e0f10", spanId: "0102030405060708", kind: "SPAN_KIND_CLIENT" }] }] }] }))).toBe(
      "resourceSpans[0].scopeSpans[0].spans[0].kind",
    );
    // A span whose length runs past the end: cut the SDK's bytes short.
    const bytes = ProtobufTraceSerializer.serializeRequest(sdkSpans())!;
    expect(bad(() => decodeTracesProto(bytes.subarray(0, bytes.length - 3)))).toMatch(/^resourceSpans\[0\]/);
    // Field 1 of the request with wire type 0 (a varint) instead of a message.
    expect(bad(() => decodeTracesProto(Uint8Array.from([0x08, 0x01])))).toBe("resourceSpans[0]");
  });

  it("encodes partial success as ExportTraceServiceResponse", () => {
    expect(encodeTraceResponseProto(null)).toEqual(new Uint8Array(0));
    // field 1 { field 1 varint 3, field 2 "x" }
    expect([...encodeTraceResponseProto({ rejectedSpans: 3, errorMessage: "x" })]).toEqual([0x0a, 0x05, 0x08, 0x03, 0x12, 0x01, 0x78]);
  });
});

const span = (attributes: OtlpSpan["attributes"], events: OtlpSpan["events"] = []): OtlpSpan => ({
  path: "resourceSpans[0].scopeSpans[0].spans[4]",
  traceId: "0102030405060708090a0b0c0d0e0f10",
  spanId: "0102030405060708",
  name: "chat",
  startTimeUnixNano: 1_700_000_000_000_000_000n,
  endTimeUnixNano: 1_700_000_000_500_000_000n,
  attributes,
  events,
});
const now = new Date("2026-01-01T00:00:00Z");

describe("GenAI spans", () => {
  it("a chat span with the current attributes: exact messages, the turn's texts, its conversation and app", () => {
    const r = readGenAiSpan(
      span({
        "gen_ai.operation.name": "chat",
        "gen_ai.request.model": "gpt-4o",
        "gen_ai.provider.name": "openai",
        "gen_ai.conversation.id": "conv-1",
        "gen_ai.input.messages": JSON.stringify(INPUT),
        "gen_ai.output.messages": JSON.stringify([{ role: "assistant", parts: [{ type: "text", content: "Sunny." }] }]),
        "user.id": "u-7",
      }),
      { "service.name": "weather-bot" },
      now,
    );
    expect(r.kind).toBe("chat");
    if (r.kind !== "chat") return;
    expect(r.chat).toMatchObject({
      operation: "chat",
      requestModel: "gpt-4o",
      provider: "openai",
      conversationKey: "conv-1",
      appId: "weather-bot",
      endUserId: "u-7",
      messageForm: "attributes",
      inputMessages: INPUT,
      query: "Weather in Paris?",
      answer: "Sunny.",
      startedAt: new Date(1_700_000_000_000),
    });
  });

  it("structured (kvlist) messages are read as they are", () => {
    const r = readGenAiSpan(span({ "gen_ai.operation.name": "generate_content", "gen_ai.input.messages": INPUT as never }), {}, now);
    expect(r.kind === "chat" && r.chat.inputMessages).toEqual(INPUT);
    expect(r.kind === "chat" && r.chat.appId).toBe("otel");
  });

  it("the older event form: one event per message, gen_ai.choice for the answer", () => {
    const r = readGenAiSpan(
      span({ "gen_ai.operation.name": "chat" }, [
        { name: "gen_ai.system.message", timeUnixNano: 0n, attributes: { content: "Be brief." } },
        { name: "gen_ai.user.message", timeUnixNano: 0n, attributes: { content: "Hi" } },
        { name: "gen_ai.assistant.message", timeUnixNano: 0n, attributes: { tool_calls: JSON.stringify([{ id: "c1", type: "function", function: { name: "weather", arguments: "{}" } }]) } },
        { name: "gen_ai.tool.message", timeUnixNano: 0n, attributes: { id: "c1", content: "18°C" } },
        { name: "gen_ai.choice", timeUnixNano: 0n, attributes: { index: 0, finish_reason: "stop", message: JSON.stringify({ content: "It is 18°C." }) } },
      ]),
      {},
      now,
    );
    expect(r.kind).toBe("chat");
    if (r.kind !== "chat") return;
    expect(r.chat.messageForm).toBe("events");
    expect(r.chat.inputMessages).toEqual([
      { role: "system", parts: [{ type: "text", content: "Be brief." }] },
      { role: "user", parts: [{ type: "text", content: "Hi" }] },
      { role: "assistant", parts: [{ type: "tool_call", id: "c1", name: "weather", arguments: "{}" }] },
      { role: "tool", parts: [{ type: "tool_call_response", id: "c1", response: "18°C" }] },
    ]);
    expect(r.chat.query).toBe("18°C");
    expect(r.chat.answer).toBe("It is 18°C.");
  });

  it("other spans are ignored by kind; unreadable chat spans are rejected naming the field", () => {
    expect(readGenAiSpan(span({ "http.method": "GET" }), {}, now)).toEqual({ kind: "ignored", what: "not a GenAI span" });
    expect(readGenAiSpan(span({ "gen_ai.operation.name": "execute_tool" }), {}, now)).toEqual({ kind: "ignored", what: "gen_ai.operation.name=execute_tool" });
    expect(readGenAiSpan(span({ "gen_ai.operation.name": "chat", "gen_ai.input.messages": "[{" }), {}, now)).toEqual({
      kind: "rejected",
      field: "resourceSpans[0].scopeSpans[0].spans[4].attributes[gen_ai.input.messages]",
      problem: "not valid JSON",
    });
    expect(readGenAiSpan(span({ "gen_ai.operation.name": "chat", "gen_ai.input.messages": JSON.stringify([{ parts: [] }]) }), {}, now)).toMatchObject({
      field: "resourceSpans[0].scopeSpans[0].spans[4].attributes[gen_ai.input.messages][0].role",
    });
    // A chat span without content waits for its GenAI log events (POST /logs, issue 35).
    expect(readGenAiSpan(span({ "gen_ai.operation.name": "chat" }), {}, now)).toEqual({ kind: "awaiting_logs" });
  });
});

describe("sent vs modelled", () => {
  const line = (role: string, content: string, section: PromptLine["section"]): PromptLine => ({ role, content, section });
  it("aligns the two histories and says how many messages each keeps", () => {
    const sent = [
      line("system", "Be brief.", "system"),
      line("user", "q1", "history"),
      line("assistant", "a1", "history"),
      line("user", "q2", "history"),
      line("assistant", "a2", "history"),
      line("user", "q3", "query"),
    ];
    const modelled = [line("system", "Be brief.", "system"), line("user", "q2", "history"), line("assistant", "a2", "history"), line("user", "q3", "query")];
    const d = promptDiff(sent, modelled);
    expect(d.summary).toBe("Your agent keeps 4 messages, your profile says 2.");
    expect(d.history).toEqual({ sent: 4, modelled: 2, both: 2, sent_only: 2, modelled_only: 0 });
    expect(d.system_matches).toBe(true);
    expect(d.query_matches).toBe(true);
    expect(d.rows).toEqual([
      { status: "sent_only", role: "user", content: "q1", sent_index: 1, modelled_index: null },
      { status: "sent_only", role: "assistant", content: "a1", sent_index: 2, modelled_index: null },
      { status: "both", role: "user", content: "q2", sent_index: 3, modelled_index: 1 },
      { status: "both", role: "assistant", content: "a2", sent_index: 4, modelled_index: 2 },
    ]);
  });

  it("same count, different messages; a different system text", () => {
    const d = promptDiff(
      [line("system", "A", "system"), line("user", "x", "history"), line("user", "q", "query")],
      [line("system", "B", "system"), line("user", "y", "history"), line("user", "q", "query")],
    );
    expect(d.summary).toBe("Your agent and your profile both keep 1 message, but 1 of them differ. Also: the system text differs.");
    expect(d.rows.map((r) => r.status)).toEqual(["modelled_only", "sent_only"]);
  });
});

describe("Server-Timing of an export", () => {
  it("sums each stage's time, in the order stages first ran, and reads back", async () => {
    const t = new StageTimes();
    await t.time("read", () => new Promise((r) => setTimeout(r, 5)));
    await t.time("decode", () => 1);
    await t.time("read", () => 2);
    const h = t.header();
    expect(h).toMatch(/^read;dur=\d+\.\d, decode;dur=\d+\.\d$/);
    const parsed = parseServerTiming(h);
    expect(Object.keys(parsed)).toEqual(["read", "decode"]);
    expect(parsed.read).toBeGreaterThanOrEqual(4);
    expect(parseServerTiming('db;desc="x";dur=12.5, junk, cache;dur=1')).toEqual({ db: 12.5, cache: 1 });
    expect(parseServerTiming(null)).toEqual({});
  });
});

describe("captured prompts in statements of bounded size", () => {
  it("cuts the rows into JSON arrays of about the size asked, every row once, in order", () => {
    const rows = Array.from({ length: 10 }, (_, i) => ({ i, text: "x".repeat(i === 4 ? 500 : 40) }));
    const chunks = byJsonSize(rows, 120);
    const back = chunks.flatMap((c) => JSON.parse(c) as { i: number }[]);
    expect(back).toEqual(rows);
    // A row larger than the bound is a chunk of its own; the others stay under it.
    expect(chunks.map((c) => (JSON.parse(c) as unknown[]).length)).toEqual([2, 2, 1, 2, 2, 1]);
    expect(byJsonSize([], 120)).toEqual([]);
  });
});

describe("GenAI spans that would break the batch", () => {
  const chatAttrs = (input: string) => ({ "gen_ai.operation.name": "chat", "gen_ai.input.messages": input });
  it("messages nested 10 000 deep inside a string attribute: the span is rejected naming the attribute, nothing thrown", () => {
    const deep = `${"[".repeat(10_000)}${"]".repeat(10_000)}`;
    const r = readGenAiSpan(span(chatAttrs(`[{"role":"user","parts":[{"type":"tool_call_response","response":${deep}}]}]`)), {}, now);
    expect(r).toEqual({ kind: "rejected", field: "resourceSpans[0].scopeSpans[0].spans[4].attributes[gen_ai.input.messages]", problem: "nested deeper than 64 levels" });
  });
  it("span times past fixed64 (1e300, 1e21 from JSON numbers) or negative: the span is rejected naming the time", () => {
    const input = JSON.stringify(INPUT);
    for (const [start, end, field] of [
      [BigInt(1e300), 0n, "startTimeUnixNano"],
      [1_700_000_000_000_000_000n, BigInt(1e21), "endTimeUnixNano"],
      [-1n, 0n, "startTimeUnixNano"],
    ] as const) {
      const r = readGenAiSpan({ ...span(chatAttrs(input)), startTimeUnixNano: start, endTimeUnixNano: end }, {}, now);
      expect(r).toMatchObject({ kind: "rejected", field: `resourceSpans[0].scopeSpans[0].spans[4].${field}` });
    }
  });
  it("a span with more than 1 000 attributes is decoded as rejected, from JSON and from protobuf", () => {
    const attributes = Array.from({ length: 1_001 }, (_, i) => ({ key: `k${i}`, value: { stringValue: "v" } }));
    const t = decodeTracesJson({ resourceSpans: [{ scopeSpans: [{ spans: [{ traceId: "0102030405060708090a0b0c0d0e0f10", spanId: "0102030405060708", attributes }] }] }] });
    expect(t.resourceSpans[0].spans[0].problem).toEqual({ field: "resourceSpans[0].scopeSpans[0].spans[0].attributes", message: "1001 attributes, more than the 1000 a span may carry" });
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)], spanLimits: { attributeCountLimit: 5_000 } });
    const s = provider.getTracer("t").startSpan("chat", { attributes: Object.fromEntries(Array.from({ length: 1_001 }, (_, i) => [`k${i}`, "v"])) });
    s.end();
    const p = decodeTracesProto(ProtobufTraceSerializer.serializeRequest(exporter.getFinishedSpans())!);
    expect(p.resourceSpans[0].spans[0].problem?.field).toBe("resourceSpans[0].scopeSpans[0].spans[0].attributes");
    expect(readGenAiSpan(p.resourceSpans[0].spans[0], {}, now).kind).toBe("rejected");
  });
});
