import { describe, expect, it } from "vitest";
import { decodeTracesProto } from "@/lib/capture/otlp-proto";
import { decodeProtoOffThread, ProtoOffThreadError, ProtoOffThreadProblem } from "@/lib/capture/otlp-proto-off-thread";
import { MAX_OTLP_VALUES_PER_SPAN, PROTO_INLINE_MESSAGES, readOtlpBody } from "@/lib/capture/read-otlp-body";
import { OtlpProblem } from "@/lib/capture/otlp-types";
import { chatBatch, emptyValuesSpan, manyKeysSpan, span, traces } from "../helpers/otlp-protobuf";

// Issue 37: OTLP protobuf bodies past the inline budget are decoded in a worker
// (otlp-proto-off-thread.ts) with the request thread's own decoders: the value handed back in
// groups must be the inline decode's, and a hostile body is refused naming its limit.

const limits = { maxHeapMb: 256, maxMs: 60_000, maxMessages: 2_000_000, maxItemWeight: MAX_OTLP_VALUES_PER_SPAN };
const post = (body: Uint8Array) => new Request("http://x/api/v1/traces", { method: "POST", headers: { "content-type": "application/x-protobuf" }, body: Buffer.from(body) });

describe("OTLP protobuf decoded off the request thread", () => {
  it("a batch of chat spans with nested values comes back from the worker exactly as the inline decode gives it", async () => {
    const nested = span({
      traceId: "5b8efff798038103d269b633813fc60c",
      spanId: "00000000000000ff",
      name: "tool",
      start: 1n,
      end: 2n,
      attributes: [
        ["list", ["a", 1, ["b", ["c"]]]],
        ["n", 42],
      ],
    });
    const body = Buffer.concat([chatBatch({ spans: 700, promptChars: 2_000, conversation: "w" }), traces("other", [nested])]);
    const inline = decodeTracesProto(body);
    const worker = await decodeProtoOffThread(new Uint8Array(body), "traces", limits);
    expect(inline.spanCount).toBe(701);
    expect(worker).toEqual(inline);
    expect((worker as typeof inline).resourceSpans[1].spans[0].attributes.list).toEqual(["a", 1, ["b", ["c"]]]);
  }, 60_000);

  it("readOtlpBody hands a body past the inline message budget to the worker and gets the same spans", async () => {
    // 3 000 chat spans of 13 messages each: past PROTO_INLINE_MESSAGES, under the byte threshold.
    const body = chatBatch({ spans: 3_000, promptChars: 200, conversation: "w" });
    expect(3_000 * 13).toBeGreaterThan(PROTO_INLINE_MESSAGES);
    const got = await readOtlpBody(post(body), "protobuf");
    expect(got).toEqual(decodeTracesProto(body));
  }, 60_000);

  it("a span of 60 000 empty values (120 KB) is refused in the worker naming the values limit and the span", async () => {
    const e: any = await decodeProtoOffThread(emptyValuesSpan(60_000), "traces", limits).catch((x: any) => x);
    expect(e).toBeInstanceOf(ProtoOffThreadError);
    expect(e).toMatchObject({ limit: "item_weight", field: "resourceSpans[0].scopeSpans[0].spans[0]" });
    expect(e.message).toContain(`more than ${MAX_OTLP_VALUES_PER_SPAN} values in one span`);
  }, 60_000);

  it("readOtlpBody answers a body of 100 000 kvlist keys with a 413 naming the limit", async () => {
    const e = await readOtlpBody(post(manyKeysSpan(100_000)), "protobuf").catch((x: any) => x);
    expect(e).toMatchObject({ kind: "too_large", code: "payload_too_large" });
    expect(e.details[0]).toMatchObject({ field: "resourceSpans[0].scopeSpans[0].spans[0]" });
    expect(e.details[0].message).toMatch(/values in one span \(limit item_weight\)/);
  }, 60_000);

  it("the worker's budget of messages, its time limit and a structural defect are each reported as such", async () => {
    // Each call gets its own copy: the bytes are moved to the worker, not copied.
    const many = () => emptyValuesSpan(300_000);
    await expect(decodeProtoOffThread(many(), "traces", { ...limits, maxMessages: 100_000 })).rejects.toMatchObject({ limit: "messages", field: "body" });
    await expect(decodeProtoOffThread(many(), "traces", { ...limits, maxMs: 1 })).rejects.toMatchObject({ limit: "decode_ms" });
    // A span's length runs past its message: the same field and words as the inline decode's.
    const cut = chatBatch({ spans: 3, promptChars: 10, conversation: "w" }).subarray(0, 200);
    let inline: OtlpProblem | null = null;
    try {
      decodeTracesProto(cut);
    } catch (x) {
      inline = x as OtlpProblem;
    }
    expect(inline).toBeInstanceOf(OtlpProblem);
    const worker: any = await decodeProtoOffThread(cut, "traces", limits).catch((x: any) => x);
    expect(worker).toBeInstanceOf(ProtoOffThreadProblem);
    expect({ field: worker.field, problem: worker.problem }).toEqual({ field: inline!.field, problem: inline!.problem });
  }, 60_000);
});
