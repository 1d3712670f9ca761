import { checkIds, MAX_ATTRIBUTES_PER_SPAN, MAX_EVENTS_PER_SPAN, MAX_SPANS_PER_REQUEST, OtlpProblem, type OtlpAttributes, type OtlpEvent, type OtlpResourceSpans, type OtlpSpan, type OtlpTraces, type OtlpValue } from "./otlp-types";

// OTLP/JSON (application/json): the proto3 JSON mapping of ExportTraceServiceRequest with
// OTLP's deviations (opentelemetry-proto docs/specification.md, "JSON Protobuf Encoding"):
// lowerCamelCase keys, trace and span ids as hex, enums as integers, 64-bit integers as
// decimal strings or numbers; unknown fields are ignored.

const MAX_DEPTH = 32;

export type Obj = Record<string, unknown>;
const at = (path: string, key: string) => (path ? `${path}.${key}` : key);
export const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

export function list(o: Obj, key: string, path: string): unknown[] {
  const v = o[key];
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new OtlpProblem(at(path, key), "must be an array");
  return v;
}

export function obj(v: unknown, path: string): Obj {
  if (!isObj(v)) throw new OtlpProblem(path, "must be an object");
  return v;
}

export function str(o: Obj, key: string, path: string): string {
  const v = o[key];
  if (v === undefined || v === null) return "";
  if (typeof v !== "string") throw new OtlpProblem(`${path}.${key}`, "must be a string");
  return v;
}

/**
 * fixed64 / int64: a decimal string or a number. A number may be any integer JSON can write
 * (1e300 is one): its range is checked where it is used (a span's times: genai-span.ts).
 */
export function int64(o: Obj, key: string, path: string): bigint {
  const v = o[key];
  if (v === undefined || v === null) return 0n;
  if (typeof v === "number" && Number.isInteger(v)) return BigInt(v);
  if (typeof v === "string" && /^-?\d{1,20}$/.test(v)) return BigInt(v);
  throw new OtlpProblem(`${path}.${key}`, "must be an integer (a number or a decimal string)");
}

export function hexId(o: Obj, key: string, path: string): string {
  const v = str(o, key, path);
  return v.toLowerCase();
}

export function decodeTracesJson(raw: unknown): OtlpTraces {
  const root = obj(raw, "body");
  let spanCount = 0;
  const resourceSpans = list(root, "resourceSpans", "").map((rsRaw, i): OtlpResourceSpans => {
    const path = `resourceSpans[${i}]`;
    const rs = obj(rsRaw, path);
    const res = rs.resource === undefined || rs.resource === null ? null : obj(rs.resource, `${path}.resource`);
    // The resource applies to all its spans: over the limit, the request is refused.
    if (res && list(res, "attributes", `${path}.resource`).length > MAX_ATTRIBUTES_PER_SPAN) {
      throw new OtlpProblem(`${path}.resource.attributes`, `more than the ${MAX_ATTRIBUTES_PER_SPAN} attributes a resource may carry`);
    }
    const resource = res ? attributes(res, `${path}.resource`) : {};
    const spans: OtlpSpan[] = [];
    list(rs, "scopeSpans", path).forEach((ssRaw, j) => {
      const sp = `${path}.scopeSpans[${j}]`;
      const ss = obj(ssRaw, sp);
      list(ss, "spans", sp).forEach((sRaw, k) => {
        if (++spanCount > MAX_SPANS_PER_REQUEST) throw new OtlpProblem("resourceSpans", `more than ${MAX_SPANS_PER_REQUEST} spans in one request`);
        spans.push(span(obj(sRaw, `${sp}.spans[${k}]`), `${sp}.spans[${k}]`));
      });
    });
    return { resource, spans };
  });
  return { resourceSpans, spanCount };
}

function span(s: Obj, path: string): OtlpSpan {
  const traceId = hexId(s, "traceId", path);
  const spanId = hexId(s, "spanId", path);
  checkIds(traceId, spanId, path);
  const kind = s.kind;
  if (kind !== undefined && kind !== null && !(typeof kind === "number" && Number.isInteger(kind))) {
    throw new OtlpProblem(`${path}.kind`, "must be an integer (OTLP/JSON encodes enums as integers)");
  }
  // A span over a limit is rejected alone (its problem), its oversized lists left undecoded.
  let problem: OtlpSpan["problem"];
  const rawEvents = list(s, "events", path);
  const tooMany = (what: unknown[], field: string, max: number) => {
    if (what.length <= max) return false;
    problem ??= { field, message: `${what.length} ${field.endsWith("events") ? "events" : "attributes"}, more than the ${max} a span may carry` };
    return true;
  };
  const events = tooMany(rawEvents, `${path}.events`, MAX_EVENTS_PER_SPAN)
    ? []
    : rawEvents.map((eRaw, i): OtlpEvent => {
        const ep = `${path}.events[${i}]`;
        const e = obj(eRaw, ep);
        if (tooMany(list(e, "attributes", ep), `${ep}.attributes`, MAX_ATTRIBUTES_PER_SPAN)) return { name: str(e, "name", ep), timeUnixNano: 0n, attributes: {} };
        return { name: str(e, "name", ep), timeUnixNano: int64(e, "timeUnixNano", ep), attributes: attributes(e, ep) };
      });
  const attrs = tooMany(list(s, "attributes", path), `${path}.attributes`, MAX_ATTRIBUTES_PER_SPAN) ? {} : attributes(s, path);
  return {
    path,
    traceId,
    spanId,
    name: str(s, "name", path),
    startTimeUnixNano: int64(s, "startTimeUnixNano", path),
    endTimeUnixNano: int64(s, "endTimeUnixNano", path),
    attributes: attrs,
    events,
    ...(problem ? { problem } : {}),
  };
}

export function attributes(o: Obj, path: string): OtlpAttributes {
  return Object.fromEntries(list(o, "attributes", path).map((kvRaw, i) => keyValue(kvRaw, `${path}.attributes[${i}]`, 0)));
}

function keyValue(raw: unknown, path: string, depth: number): [string, OtlpValue] {
  const kv = obj(raw, path);
  const key = str(kv, "key", path);
  if (!key) throw new OtlpProblem(`${path}.key`, "an attribute needs a key");
  return [key, kv.value === undefined || kv.value === null ? null : anyValue(kv.value, `${path}.value`, depth + 1)];
}

export function anyValue(raw: unknown, path: string, depth: number): OtlpValue {
  if (depth > MAX_DEPTH) throw new OtlpProblem(path, `attribute values nested deeper than ${MAX_DEPTH}`);
  const v = obj(raw, path);
  if ("stringValue" in v) return str(v, "stringValue", path);
  if ("boolValue" in v) {
    if (typeof v.boolValue !== "boolean") throw new OtlpProblem(`${path}.boolValue`, "must be a boolean");
    return v.boolValue;
  }
  if ("intValue" in v) return Number(int64(v, "intValue", path));
  if ("doubleValue" in v) {
    const d = v.doubleValue;
    // proto3 JSON writes NaN and the infinities as strings.
    if (typeof d === "number") return d;
    if (d === "NaN" || d === "Infinity" || d === "-Infinity") return Number(d);
    throw new OtlpProblem(`${path}.doubleValue`, "must be a number");
  }
  if ("arrayValue" in v) {
    const a = obj(v.arrayValue, `${path}.arrayValue`);
    return list(a, "values", `${path}.arrayValue`).map((x, i) => anyValue(x, `${path}.arrayValue.values[${i}]`, depth + 1));
  }
  if ("kvlistValue" in v) {
    const l = obj(v.kvlistValue, `${path}.kvlistValue`);
    return Object.fromEntries(list(l, "values", `${path}.kvlistValue`).map((x, i) => keyValue(x, `${path}.kvlistValue.values[${i}]`, depth + 1)));
  }
  if ("bytesValue" in v) return str(v, "bytesValue", path);
  return null;
}
