// OTLP ExportTraceServiceRequest bodies in the protobuf wire format, built by hand for tests and
// benchmarks that need sizes or shapes the SDK exporters do not produce (a batch of tens of MB,
// a hostile body of millions of tiny values). Field numbers: opentelemetry-proto
// trace/v1/trace.proto, common/v1/common.proto (as lib/capture/otlp-proto.ts reads them).

type Bytes = Uint8Array;

export function varint(n: number | bigint): Bytes {
  let v = BigInt(n);
  const out: number[] = [];
  while (v >= 0x80n) {
    out.push(Number(v & 0x7fn) | 0x80);
    v >>= 7n;
  }
  out.push(Number(v));
  return Uint8Array.from(out);
}

const cat = (parts: Bytes[]): Bytes => Buffer.concat(parts);
const tag = (field: number, wire: number) => varint(field * 8 + wire);
/** A length-delimited field (a message, a string, bytes). */
export const lenField = (field: number, payload: Bytes | Bytes[]): Bytes => {
  const body = Array.isArray(payload) ? cat(payload) : payload;
  return cat([tag(field, 2), varint(body.length), body]);
};
const text = (field: number, s: string) => lenField(field, Buffer.from(s, "utf8"));
const fixed64 = (field: number, v: bigint) => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(v);
  return cat([tag(field, 1), b]);
};
const hexBytes = (field: number, hex: string) => lenField(field, Buffer.from(hex, "hex"));

export type PbValue = string | number | PbValue[];
/** AnyValue: a string, an int, or an array of values. */
export function anyValue(v: PbValue): Bytes {
  if (typeof v === "string") return text(1, v);
  if (typeof v === "number") return cat([tag(3, 0), varint(v)]);
  return lenField(5, v.map((x) => lenField(1, anyValue(x))));
}
export const keyValue = (key: string, v: PbValue) => cat([text(1, key), lenField(2, anyValue(v))]);

export type PbSpan = { traceId: string; spanId: string; name: string; start: bigint; end: bigint; attributes: [string, PbValue][] };
export function span(s: PbSpan): Bytes {
  return cat([hexBytes(1, s.traceId), hexBytes(2, s.spanId), text(5, s.name), fixed64(7, s.start), fixed64(8, s.end), ...s.attributes.map(([k, v]) => lenField(9, keyValue(k, v)))]);
}

/** One resource (service.name) and one scope holding `spans` (each already encoded by span(), or raw bytes of a Span message). */
export function traces(service: string, spans: Bytes[]): Bytes {
  const resource = lenField(1, lenField(1, keyValue("service.name", service)));
  const scope = lenField(1, text(1, "x"));
  return lenField(1, [resource, lenField(2, [scope, ...spans.map((s) => lenField(2, s))])]);
}

/**
 * Chat spans as the GenAI instrumentations send them: a system prompt of `promptChars`, a question,
 * an answer. Span i (counted from `from`) starts i seconds after the first.
 */
export function chatBatch(opts: { spans: number; promptChars: number; conversation: string; service?: string; traceId?: string; from?: number }): Bytes {
  const prompt = JSON.stringify([{ type: "text", content: "lorem ipsum dolor sit amet ".repeat(Math.ceil(opts.promptChars / 27)).slice(0, opts.promptChars) }]);
  const msg = (role: string, content: string) => JSON.stringify([{ role, parts: [{ type: "text", content }] }]);
  const spans = Array.from({ length: opts.spans }, (_, n) => n + (opts.from ?? 0)).map((i) =>
    span({
      traceId: opts.traceId ?? "5b8efff798038103d269b633813fc60c",
      spanId: (i + 1).toString(16).padStart(16, "0"),
      name: "chat",
      start: 1_772_359_200_000_000_000n + BigInt(i) * 1_000_000_000n,
      end: 1_772_359_200_500_000_000n + BigInt(i) * 1_000_000_000n,
      attributes: [
        ["gen_ai.operation.name", "chat"],
        ["gen_ai.conversation.id", opts.conversation],
        ["gen_ai.usage.input_tokens", 1200],
        ["gen_ai.system_instructions", prompt],
        ["gen_ai.input.messages", msg("user", `question ${i}`)],
        ["gen_ai.output.messages", msg("assistant", `answer ${i}`)],
      ],
    }),
  );
  return traces(opts.service ?? "proto-bot", spans);
}

/**
 * A hostile body: one span whose one attribute is an array of `values` empty AnyValues (2 bytes
 * each on the wire, a slot and a null once decoded), within the size limit.
 */
export function emptyValuesSpan(values: number): Bytes {
  const one = Uint8Array.from([0x0a, 0x00]); // ArrayValue.values: an empty AnyValue
  const array = Buffer.alloc(values * 2);
  for (let i = 0; i < values; i++) array.set(one, i * 2);
  const attribute = lenField(9, cat([text(1, "hostile"), lenField(2, lenField(5, array))]));
  const head = cat([hexBytes(1, "5b8efff798038103d269b633813fc60c"), hexBytes(2, "00000000000000aa"), text(5, "chat"), fixed64(7, 1_772_359_200_000_000_000n), fixed64(8, 1_772_359_200_500_000_000n)]);
  return traces("hostile-bot", [cat([head, attribute])]);
}

/** A hostile body: one span whose one attribute is a kvlist of `pairs` distinct keys (an object of that many keys once decoded). */
export function manyKeysSpan(pairs: number): Bytes {
  const parts: Bytes[] = [];
  for (let i = 0; i < pairs; i++) parts.push(lenField(1, text(1, `k${i}`)));
  const attribute = lenField(9, cat([text(1, "hostile"), lenField(2, lenField(6, parts))]));
  const head = cat([hexBytes(1, "5b8efff798038103d269b633813fc60c"), hexBytes(2, "00000000000000ab"), text(5, "chat"), fixed64(7, 1_772_359_200_000_000_000n), fixed64(8, 1_772_359_200_500_000_000n)]);
  return traces("hostile-bot", [cat([head, attribute])]);
}
