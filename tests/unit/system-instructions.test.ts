import { ProtobufTraceSerializer } from "@opentelemetry/otlp-transformer";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { describe, expect, it } from "vitest";
import { decodeTracesProto } from "@/lib/capture/otlp-proto";
import type { OtlpTraces } from "@/lib/capture/otlp-types";
import { StageTimes } from "@/lib/capture/stage-times";
import { ingestTraces, STATEMENT_SIZES } from "@/lib/capture/store-captures";
import { forgetSystemInstructions, systemInstructionsKept, systemPartsOf } from "@/lib/capture/system-instructions";
import { projectSql } from "@/lib/db/project-sql";
import { purgeProcessCaches } from "@/lib/privacy/purge-caches";
import { capturedRowsOf } from "../helpers/captured-prompts";
import { useEmbeddedDatabase } from "../helpers/embedded-database";

// System instructions arrive with every call; lib/capture/system-instructions.ts parses each
// distinct text once and keeps what is derived from it. Here: a text is parsed once, a bad one
// never kept, the cache bounded and emptied by an erasure's purge; and stored captures are the
// same, row for row, whether every call found the instructions kept or parsed them afresh.

const store = useEmbeddedDatabase();
const RECEIVED = new Date(Date.UTC(2026, 0, 2));

describe("system instructions parsed once per text", () => {
  it("parses a text the first time only, and answers the same parts after", () => {
    forgetSystemInstructions();
    let parses = 0;
    const raw = JSON.stringify([{ type: "text", content: "You are the travel desk's assistant." }]);
    const parse = () => {
      parses++;
      return JSON.parse(raw);
    };
    const a = systemPartsOf(raw, parse);
    const b = systemPartsOf(raw, parse);
    expect(parses).toBe(1);
    expect(b).toBe(a);
    expect(systemInstructionsKept()).toBe(1);
  });

  it("keeps nothing for a text that fails to parse", () => {
    forgetSystemInstructions();
    const bad = () => {
      throw new Error("not valid JSON");
    };
    expect(() => systemPartsOf("{", bad)).toThrow("not valid JSON");
    expect(() => systemPartsOf("{", bad)).toThrow("not valid JSON");
    expect(systemInstructionsKept()).toBe(0);
  });

  it("keeps at most 64 texts, and none after an erasure's purge", () => {
    forgetSystemInstructions();
    for (let i = 0; i < 100; i++) systemPartsOf(`[{"type":"text","content":"prompt ${i}"}]`, () => [{ type: "text", content: `prompt ${i}` }]);
    expect(systemInstructionsKept()).toBe(64);
    purgeProcessCaches();
    expect(systemInstructionsKept()).toBe(0);
  });
});

/** One export of `agents` agents' `turns` calls, each sending its long system instructions and its history so far. */
function agentsRequest(tag: string, agents: number, turns: number): OtlpTraces {
  const memory = new InMemorySpanExporter();
  const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(memory)] }).getTracer("t");
  // Two instructions, alternating by agent: a kept text must never answer for another.
  const systems = ["answer briefly, cite the booking reference, never invent prices", "answer at length, in French"].map((rule) =>
    JSON.stringify([{ type: "text", content: `${tag}: ${rule}. `.repeat(40) }]),
  );
  const t0 = Date.UTC(2026, 0, 1);
  for (let a = 0; a < agents; a++) {
    const system = systems[a % 2];
    const history: unknown[] = [];
    for (let t = 0; t < turns; t++) {
      history.push({ role: "user", parts: [{ type: "text", content: `${tag} agent ${a} question ${t}` }] });
      const answer = { role: "assistant", parts: [{ type: "text", content: `answer ${a}.${t}` }] };
      tracer
        .startSpan("chat", {
          startTime: new Date(t0 + t * 1000 + a),
          attributes: {
            "gen_ai.operation.name": "chat",
            "gen_ai.system_instructions": system,
            "gen_ai.input.messages": JSON.stringify(history),
            "gen_ai.output.messages": JSON.stringify([{ ...answer, finish_reason: "stop" }]),
          },
        })
        .end(new Date(t0 + t * 1000 + a + 500));
      history.push(answer);
    }
  }
  return decodeTracesProto(ProtobufTraceSerializer.serializeRequest(memory.getFinishedSpans() as ReadableSpan[])!);
}


describe("captures with the instructions kept or parsed afresh", () => {
  it("stores the same rows", async () => {
    const request = agentsRequest("same", 4, 6);
    for (const p of ["sys-kept", "sys-fresh"]) await store.db.sql.query(`INSERT INTO projects (id, name, slug, created_at) VALUES ($1, $1, $1, now())`, [p]);
    forgetSystemInstructions();
    await ingestTraces(projectSql(store.db.sql, "sys-kept"), request, RECEIVED, new StageTimes(), STATEMENT_SIZES.embedded);
    // Each call of the other project finds nothing kept: one span a request (in export order), the cache emptied before each.
    const [rs] = request.resourceSpans;
    for (const span of rs.spans) {
      forgetSystemInstructions();
      await ingestTraces(projectSql(store.db.sql, "sys-fresh"), { resourceSpans: [{ ...rs, spans: [span] }], spanCount: 1 }, RECEIVED, new StageTimes(), STATEMENT_SIZES.embedded);
    }
    const kept = await capturedRowsOf(store.db, "sys-kept");
    expect(kept.messages).toHaveLength(24);
    expect(new Set(kept.captured_spans.map((s) => (s as { system_node: string | null }).system_node))).toHaveLength(2);
    expect(await capturedRowsOf(store.db, "sys-fresh")).toEqual(kept);
  });
});
