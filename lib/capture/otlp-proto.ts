import { checkIds, MAX_ATTRIBUTES_PER_SPAN, MAX_EVENTS_PER_SPAN, MAX_SPANS_PER_REQUEST, OtlpProblem, type OtlpAttributes, type OtlpEvent, type OtlpResourceSpans, type OtlpSpan, type OtlpTraces, type OtlpValue } from "./otlp-types";

// Binary OTLP (application/x-protobuf): ExportTraceServiceRequest decoded straight from the
// protobuf wire format. The field numbers are those of open-telemetry/opentelemetry-proto
// (opentelemetry/proto/collector/trace/v1/trace_service.proto, trace/v1/trace.proto,
// common/v1/common.proto, resource/v1/resource.proto). @opentelemetry/otlp-transformer
// only serializes requests (and decodes the collector's response), so it cannot read one:
// see docs/architecture.md. Unknown fields are skipped, as protobuf readers must.

const MAX_DEPTH = 32;

/**
 * Messages (sub-messages: spans, attributes, values...) one decode may open: what decoding costs
 * grows with them, not only with the bytes (a 1 MB body of 500 000 empty array values took 0.4-0.7 s,
 * 100 000 kvlist keys 1.2 s). read-otlp-body.ts decodes small bodies on the request thread under a
 * small budget and hands a body that runs past it to a worker (otlp-proto-off-thread.ts), which
 * decodes under a larger one. Decoding is synchronous, so one module-level budget is safe.
 */
export class MessageBudgetExceeded extends Error {
  constructor(readonly limit: number) {
    super(`more than ${limit} protobuf messages`);
  }
}
const budget = { used: 0, limit: Infinity };

/** `decode()` with at most `limit` sub-messages opened; past it MessageBudgetExceeded is thrown. */
export function withMessageBudget<T>(limit: number, decode: () => T): T {
  budget.used = 0;
  budget.limit = limit;
  try {
    return decode();
  } finally {
    budget.limit = Infinity;
  }
}

/** A protobuf message being read: the OTLP logs and metrics decoders (otlp-logs.ts) share it. */
export class Reader {
  pos: number;
  constructor(
    readonly buf: Uint8Array,
    start: number,
    readonly end: number,
    readonly path: string,
  ) {
    this.pos = start;
  }

  done() {
    return this.pos >= this.end;
  }

  fail(message: string, field = this.path): never {
    throw new OtlpProblem(field || "body", message);
  }

  /** A varint as a number (lengths, enums, tags: all well under 2^53). */
  varint(): number {
    let result = 0;
    let mul = 1;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) this.fail("truncated protobuf (a varint runs past the end)");
      const b = this.buf[this.pos++];
      result += (b & 0x7f) * mul;
      if (b < 0x80) return result;
      mul *= 128;
    }
    return this.fail("malformed protobuf (a varint longer than 10 bytes)");
  }

  /** A varint as a signed 64-bit integer (int64). */
  varint64(): bigint {
    let result = 0n;
    let shift = 0n;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) this.fail("truncated protobuf (a varint runs past the end)");
      const b = this.buf[this.pos++];
      result |= BigInt(b & 0x7f) << shift;
      if (b < 0x80) return BigInt.asIntN(64, result);
      shift += 7n;
    }
    return this.fail("malformed protobuf (a varint longer than 10 bytes)");
  }

  fixed64(): bigint {
    if (this.pos + 8 > this.end) this.fail("truncated protobuf (a fixed64 runs past the end)");
    const v = new DataView(this.buf.buffer, this.buf.byteOffset + this.pos, 8).getBigUint64(0, true);
    this.pos += 8;
    return v;
  }

  double(): number {
    if (this.pos + 8 > this.end) this.fail("truncated protobuf (a double runs past the end)");
    const v = new DataView(this.buf.buffer, this.buf.byteOffset + this.pos, 8).getFloat64(0, true);
    this.pos += 8;
    return v;
  }

  /** The bounds of a length-delimited field. */
  span(field = this.path): [number, number] {
    const len = this.varint();
    const start = this.pos;
    if (start + len > this.end) this.fail("truncated protobuf (the field's length runs past its message)", field);
    this.pos = start + len;
    return [start, start + len];
  }

  bytes(): Uint8Array {
    const [s, e] = this.span();
    return this.buf.subarray(s, e);
  }

  string(field: string): string {
    try {
      return UTF8.decode(this.bytes());
    } catch {
      return this.fail("not valid UTF-8", field);
    }
  }

  sub(path: string): Reader {
    if (++budget.used > budget.limit) throw new MessageBudgetExceeded(budget.limit);
    const [s, e] = this.span(path);
    return new Reader(this.buf, s, e, path);
  }

  skip(wire: number) {
    if (wire === 0) this.varint64();
    else if (wire === 1) this.pos += 8;
    else if (wire === 2) this.span();
    else if (wire === 5) this.pos += 4;
    else this.fail(`malformed protobuf (wire type ${wire})`);
    if (this.pos > this.end) this.fail("truncated protobuf");
  }

  /** Each field of the message: the callback reads the fields it knows, the rest are skipped. */
  fields(each: (field: number, wire: number) => boolean) {
    while (!this.done()) {
      const tag = this.varint();
      const field = Math.floor(tag / 8);
      const wire = tag & 7;
      if (field === 0) this.fail("malformed protobuf (field number 0)");
      if (!each(field, wire)) this.skip(wire);
    }
  }

  expect(wire: number, want: number, field: string) {
    if (wire !== want) this.fail(`wrong protobuf wire type ${wire} (expected ${want})`, field);
  }
}

const UTF8 = new TextDecoder("utf-8", { fatal: true });

export const hex = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString("hex");

export function decodeTracesProto(body: Uint8Array): OtlpTraces {
  const r = new Reader(body, 0, body.length, "");
  const resourceSpans: OtlpResourceSpans[] = [];
  let spanCount = 0;
  r.fields((field, wire) => {
    if (field !== 1) return false;
    const path = `resourceSpans[${resourceSpans.length}]`;
    r.expect(wire, 2, path);
    const rs = readResourceSpans(r.sub(path), path, () => {
      if (++spanCount > MAX_SPANS_PER_REQUEST) r.fail(`more than ${MAX_SPANS_PER_REQUEST} spans in one request`, "resourceSpans");
    });
    resourceSpans.push(rs);
    return true;
  });
  return { resourceSpans, spanCount };
}

function readResourceSpans(r: Reader, path: string, counted: () => void): OtlpResourceSpans {
  let resource: OtlpAttributes = {};
  const spans: OtlpSpan[] = [];
  let scopes = 0;
  r.fields((field, wire) => {
    if (field === 1) {
      r.expect(wire, 2, `${path}.resource`);
      const rr = r.sub(`${path}.resource`);
      const attrs: [string, OtlpValue][] = [];
      rr.fields((f, w) => {
        if (f !== 1) return false;
        rr.expect(w, 2, `${path}.resource.attributes`);
        if (attrs.length >= MAX_ATTRIBUTES_PER_SPAN) rr.fail(`more than the ${MAX_ATTRIBUTES_PER_SPAN} attributes a resource may carry`, `${path}.resource.attributes`);
        attrs.push(readKeyValue(rr.sub(`${path}.resource.attributes[${attrs.length}]`), 0));
        return true;
      });
      resource = Object.fromEntries(attrs);
      return true;
    }
    if (field === 2) {
      const sp = `${path}.scopeSpans[${scopes++}]`;
      r.expect(wire, 2, sp);
      const sr = r.sub(sp);
      let n = 0;
      sr.fields((f, w) => {
        if (f !== 2) return false;
        const p = `${sp}.spans[${n++}]`;
        sr.expect(w, 2, p);
        counted();
        spans.push(readSpan(sr.sub(p), p));
        return true;
      });
      return true;
    }
    return false;
  });
  return { resource, spans };
}

function readSpan(r: Reader, path: string): OtlpSpan {
  let traceId = "";
  let spanId = "";
  let name = "";
  let start = 0n;
  let end = 0n;
  const attrs: [string, OtlpValue][] = [];
  const events: OtlpEvent[] = [];
  // Past a limit the span is rejected alone: its further attributes and events are counted and skipped, not decoded.
  let attrCount = 0;
  let eventCount = 0;
  let eventAttrsOver: string | null = null;
  r.fields((field, wire) => {
    switch (field) {
      case 1:
        r.expect(wire, 2, `${path}.traceId`);
        traceId = hex(r.bytes());
        return true;
      case 2:
        r.expect(wire, 2, `${path}.spanId`);
        spanId = hex(r.bytes());
        return true;
      case 5:
        r.expect(wire, 2, `${path}.name`);
        name = r.string(`${path}.name`);
        return true;
      case 7:
        r.expect(wire, 1, `${path}.startTimeUnixNano`);
        start = r.fixed64();
        return true;
      case 8:
        r.expect(wire, 1, `${path}.endTimeUnixNano`);
        end = r.fixed64();
        return true;
      case 9:
        r.expect(wire, 2, `${path}.attributes`);
        if (++attrCount > MAX_ATTRIBUTES_PER_SPAN) return false;
        attrs.push(readKeyValue(r.sub(`${path}.attributes[${attrs.length}]`), 0));
        return true;
      case 11: {
        const p = `${path}.events[${eventCount}]`;
        r.expect(wire, 2, p);
        if (++eventCount > MAX_EVENTS_PER_SPAN || eventAttrsOver) return false;
        const e = readEvent(r.sub(p), p);
        if (e === null) eventAttrsOver = `${p}.attributes`;
        else events.push(e);
        return true;
      }
      default:
        return false;
    }
  });
  checkIds(traceId, spanId, path);
  const problem: OtlpSpan["problem"] =
    attrCount > MAX_ATTRIBUTES_PER_SPAN
      ? { field: `${path}.attributes`, message: `${attrCount} attributes, more than the ${MAX_ATTRIBUTES_PER_SPAN} a span may carry` }
      : eventCount > MAX_EVENTS_PER_SPAN
        ? { field: `${path}.events`, message: `${eventCount} events, more than the ${MAX_EVENTS_PER_SPAN} a span may carry` }
        : eventAttrsOver
          ? { field: eventAttrsOver, message: `more than the ${MAX_ATTRIBUTES_PER_SPAN} attributes an event may carry` }
          : undefined;
  if (problem) return { path, traceId, spanId, name, startTimeUnixNano: start, endTimeUnixNano: end, attributes: {}, events: [], problem };
  return { path, traceId, spanId, name, startTimeUnixNano: start, endTimeUnixNano: end, attributes: Object.fromEntries(attrs), events };
}

/** An event, or null when it carries more attributes than MAX_ATTRIBUTES_PER_SPAN (the rest skipped). */
function readEvent(r: Reader, path: string): OtlpEvent | null {
  let time = 0n;
  let name = "";
  const attrs: [string, OtlpValue][] = [];
  let over = false;
  r.fields((field, wire) => {
    if (field === 1) {
      r.expect(wire, 1, `${path}.timeUnixNano`);
      time = r.fixed64();
    } else if (field === 2) {
      r.expect(wire, 2, `${path}.name`);
      name = r.string(`${path}.name`);
    } else if (field === 3) {
      r.expect(wire, 2, `${path}.attributes`);
      if (over || attrs.length >= MAX_ATTRIBUTES_PER_SPAN) {
        over = true;
        return false;
      }
      attrs.push(readKeyValue(r.sub(`${path}.attributes[${attrs.length}]`), 0));
    } else return false;
    return true;
  });
  if (over) return null;
  return { name, timeUnixNano: time, attributes: Object.fromEntries(attrs) };
}

export function readKeyValue(r: Reader, depth: number): [string, OtlpValue] {
  let key = "";
  let value: OtlpValue = null;
  r.fields((field, wire) => {
    if (field === 1) {
      r.expect(wire, 2, `${r.path}.key`);
      key = r.string(`${r.path}.key`);
    } else if (field === 2) {
      r.expect(wire, 2, `${r.path}.value`);
      value = readAnyValue(r.sub(`${r.path}.value`), depth + 1);
    } else return false;
    return true;
  });
  if (!key) r.fail("an attribute needs a key", `${r.path}.key`);
  return [key, value];
}

export function readAnyValue(r: Reader, depth: number): OtlpValue {
  if (depth > MAX_DEPTH) r.fail(`attribute values nested deeper than ${MAX_DEPTH}`);
  let value: OtlpValue = null;
  r.fields((field, wire) => {
    switch (field) {
      case 1:
        r.expect(wire, 2, `${r.path}.stringValue`);
        value = r.string(`${r.path}.stringValue`);
        return true;
      case 2:
        r.expect(wire, 0, `${r.path}.boolValue`);
        value = r.varint() !== 0;
        return true;
      case 3:
        r.expect(wire, 0, `${r.path}.intValue`);
        value = Number(r.varint64());
        return true;
      case 4:
        r.expect(wire, 1, `${r.path}.doubleValue`);
        value = r.double();
        return true;
      case 5:
      case 6: {
        const name = field === 5 ? "arrayValue" : "kvlistValue";
        r.expect(wire, 2, `${r.path}.${name}`);
        const list = r.sub(`${r.path}.${name}`);
        const items: OtlpValue[] = [];
        const pairs: [string, OtlpValue][] = [];
        list.fields((f, w) => {
          if (f !== 1) return false;
          list.expect(w, 2, `${list.path}.values`);
          const at = `${list.path}.values[${field === 5 ? items.length : pairs.length}]`;
          if (field === 5) items.push(readAnyValue(list.sub(at), depth + 1));
          else pairs.push(readKeyValue(list.sub(at), depth + 1));
          return true;
        });
        value = field === 5 ? items : Object.fromEntries(pairs);
        return true;
      }
      case 7:
        r.expect(wire, 2, `${r.path}.bytesValue`);
        value = Buffer.from(r.bytes()).toString("base64");
        return true;
      default:
        return false;
    }
  });
  return value;
}

/**
 * ExportTraceServiceResponse: empty on full success; partial_success (field 1) with
 * rejected_spans (1, int64) and error_message (2) otherwise.
 */
export function encodeTraceResponseProto(partial: { rejectedSpans: number; errorMessage: string } | null): Uint8Array {
  if (!partial) return new Uint8Array(0);
  const inner: number[] = [];
  if (partial.rejectedSpans) inner.push(0x08, ...varintBytes(partial.rejectedSpans));
  const msg = Buffer.from(partial.errorMessage, "utf8");
  if (msg.length) inner.push(0x12, ...varintBytes(msg.length), ...msg);
  return Uint8Array.from([0x0a, ...varintBytes(inner.length), ...inner]);
}

export function varintBytes(n: number): number[] {
  const out: number[] = [];
  let v = n;
  while (v >= 0x80) {
    out.push((v % 128) | 0x80);
    v = Math.floor(v / 128);
  }
  out.push(v);
  return out;
}
