import { anyValue, attributes, int64, isObj, list, obj, str, type Obj } from "./otlp-json";
import { hex, readAnyValue, readKeyValue, Reader } from "./otlp-proto";
import { MAX_LOG_RECORDS_PER_REQUEST, OtlpProblem, type OtlpAttributes, type OtlpLogRecord, type OtlpLogs, type OtlpResourceLogs, type OtlpValue } from "./otlp-types";

// ExportLogsServiceRequest (POST /api/v1/logs) in both OTLP encodings, and the count of data
// points of an ExportMetricsServiceRequest (POST /api/v1/metrics, which keeps nothing but
// says how much it dropped). Field numbers: open-telemetry/opentelemetry-proto,
// logs/v1/logs.proto and metrics/v1/metrics.proto. Paths are spelled as OTLP/JSON does.

/** A record's trace or span id: empty (not tied to a span) or of the right length, not all zero. */
function checkLogIds(traceId: string, spanId: string, path: string) {
  if (traceId && (!/^[0-9a-f]{32}$/.test(traceId) || /^0+$/.test(traceId))) throw new OtlpProblem(`${path}.traceId`, "must be 16 bytes, not all zero, or absent");
  if (spanId && (!/^[0-9a-f]{16}$/.test(spanId) || /^0+$/.test(spanId))) throw new OtlpProblem(`${path}.spanId`, "must be 8 bytes, not all zero, or absent");
}

function record(path: string, traceId: string, spanId: string, eventName: string, time: bigint, observed: bigint, attrs: OtlpAttributes, body: OtlpValue): OtlpLogRecord {
  checkLogIds(traceId, spanId, path);
  // The older GenAI events name themselves with the attribute event.name (before LogRecord.event_name).
  const named = eventName || (typeof attrs["event.name"] === "string" ? attrs["event.name"] : "");
  return { path, traceId, spanId, eventName: named, timeUnixNano: time || observed, attributes: attrs, body };
}

// --- protobuf ---

export function decodeLogsProto(body: Uint8Array): OtlpLogs {
  const r = new Reader(body, 0, body.length, "");
  const resourceLogs: OtlpResourceLogs[] = [];
  let recordCount = 0;
  r.fields((field, wire) => {
    if (field !== 1) return false;
    const path = `resourceLogs[${resourceLogs.length}]`;
    r.expect(wire, 2, path);
    const rr = r.sub(path);
    let resource: OtlpAttributes = {};
    const records: OtlpLogRecord[] = [];
    let scopes = 0;
    rr.fields((f, w) => {
      if (f === 1) {
        rr.expect(w, 2, `${path}.resource`);
        resource = readAttributesOf(rr.sub(`${path}.resource`), 1, `${path}.resource`);
        return true;
      }
      if (f !== 2) return false;
      const sp = `${path}.scopeLogs[${scopes++}]`;
      rr.expect(w, 2, sp);
      const sr = rr.sub(sp);
      let n = 0;
      sr.fields((g, x) => {
        if (g !== 2) return false;
        const p = `${sp}.logRecords[${n++}]`;
        sr.expect(x, 2, p);
        if (++recordCount > MAX_LOG_RECORDS_PER_REQUEST) sr.fail(`more than ${MAX_LOG_RECORDS_PER_REQUEST} log records in one request`, "resourceLogs");
        records.push(readLogRecord(sr.sub(p), p));
        return true;
      });
      return true;
    });
    resourceLogs.push({ resource, records });
    return true;
  });
  return { resourceLogs, recordCount };
}

function readAttributesOf(r: Reader, fieldNumber: number, path: string): OtlpAttributes {
  const attrs: [string, OtlpValue][] = [];
  r.fields((f, w) => {
    if (f !== fieldNumber) return false;
    r.expect(w, 2, `${path}.attributes`);
    attrs.push(readKeyValue(r.sub(`${path}.attributes[${attrs.length}]`), 0));
    return true;
  });
  return Object.fromEntries(attrs);
}

function readLogRecord(r: Reader, path: string): OtlpLogRecord {
  let time = 0n;
  let observed = 0n;
  let body: OtlpValue = null;
  const attrs: [string, OtlpValue][] = [];
  let traceId = "";
  let spanId = "";
  let eventName = "";
  r.fields((field, wire) => {
    switch (field) {
      case 1:
        r.expect(wire, 1, `${path}.timeUnixNano`);
        time = r.fixed64();
        return true;
      case 11:
        r.expect(wire, 1, `${path}.observedTimeUnixNano`);
        observed = r.fixed64();
        return true;
      case 5:
        r.expect(wire, 2, `${path}.body`);
        body = readAnyValue(r.sub(`${path}.body`), 1);
        return true;
      case 6:
        r.expect(wire, 2, `${path}.attributes`);
        attrs.push(readKeyValue(r.sub(`${path}.attributes[${attrs.length}]`), 0));
        return true;
      case 9:
        r.expect(wire, 2, `${path}.traceId`);
        traceId = hex(r.bytes());
        return true;
      case 10:
        r.expect(wire, 2, `${path}.spanId`);
        spanId = hex(r.bytes());
        return true;
      case 12:
        r.expect(wire, 2, `${path}.eventName`);
        eventName = r.string(`${path}.eventName`);
        return true;
      default:
        return false;
    }
  });
  return record(path, traceId, spanId, eventName, time, observed, Object.fromEntries(attrs), body);
}

// --- JSON ---

export function decodeLogsJson(raw: unknown): OtlpLogs {
  const root = obj(raw, "body");
  let recordCount = 0;
  const resourceLogs = list(root, "resourceLogs", "").map((rlRaw, i): OtlpResourceLogs => {
    const path = `resourceLogs[${i}]`;
    const rl = obj(rlRaw, path);
    const resource = rl.resource === undefined || rl.resource === null ? {} : attributes(obj(rl.resource, `${path}.resource`), `${path}.resource`);
    const records: OtlpLogRecord[] = [];
    list(rl, "scopeLogs", path).forEach((slRaw, j) => {
      const sp = `${path}.scopeLogs[${j}]`;
      list(obj(slRaw, sp), "logRecords", sp).forEach((lrRaw, k) => {
        if (++recordCount > MAX_LOG_RECORDS_PER_REQUEST) throw new OtlpProblem("resourceLogs", `more than ${MAX_LOG_RECORDS_PER_REQUEST} log records in one request`);
        const p = `${sp}.logRecords[${k}]`;
        const lr = obj(lrRaw, p);
        const body = lr.body === undefined || lr.body === null ? null : anyValue(lr.body, `${p}.body`, 1);
        const traceId = str(lr, "traceId", p).toLowerCase();
        const spanId = str(lr, "spanId", p).toLowerCase();
        records.push(record(p, traceId, spanId, str(lr, "eventName", p), int64(lr, "timeUnixNano", p), int64(lr, "observedTimeUnixNano", p), attributes(lr, p), body));
      });
    });
    return { resource, records };
  });
  return { resourceLogs, recordCount };
}

// --- metrics: counted, not kept ---

/** Metric fields that hold data points (gauge, sum, histogram, exponential_histogram, summary): each has data_points = 1. */
const METRIC_DATA_FIELDS = new Set([5, 7, 9, 10, 11]);
const METRIC_DATA_KEYS = ["gauge", "sum", "histogram", "exponentialHistogram", "summary"];

export type OtlpMetricsCount = { dataPoints: number };

export function countMetricsProto(body: Uint8Array): OtlpMetricsCount {
  const r = new Reader(body, 0, body.length, "");
  let dataPoints = 0;
  let nr = 0;
  r.fields((field, wire) => {
    if (field !== 1) return false;
    const path = `resourceMetrics[${nr++}]`;
    r.expect(wire, 2, path);
    const rm = r.sub(path);
    let ns = 0;
    rm.fields((f, w) => {
      if (f !== 2) return false;
      const sp = `${path}.scopeMetrics[${ns++}]`;
      rm.expect(w, 2, sp);
      const sm = rm.sub(sp);
      let nm = 0;
      sm.fields((g, x) => {
        if (g !== 2) return false;
        const mp = `${sp}.metrics[${nm++}]`;
        sm.expect(x, 2, mp);
        const m = sm.sub(mp);
        m.fields((h, y) => {
          if (!METRIC_DATA_FIELDS.has(h)) return false;
          m.expect(y, 2, mp);
          const d = m.sub(mp);
          d.fields((k, z) => {
            if (k !== 1) return false;
            d.expect(z, 2, `${mp}.dataPoints`);
            d.sub(`${mp}.dataPoints`);
            dataPoints++;
            return true;
          });
          return true;
        });
        return true;
      });
      return true;
    });
    return true;
  });
  return { dataPoints };
}

export function countMetricsJson(raw: unknown): OtlpMetricsCount {
  const root = obj(raw, "body");
  let dataPoints = 0;
  list(root, "resourceMetrics", "").forEach((rmRaw, i) => {
    const path = `resourceMetrics[${i}]`;
    list(obj(rmRaw, path), "scopeMetrics", path).forEach((smRaw, j) => {
      const sp = `${path}.scopeMetrics[${j}]`;
      list(obj(smRaw, sp), "metrics", sp).forEach((mRaw, k) => {
        const mp = `${sp}.metrics[${k}]`;
        const m: Obj = obj(mRaw, mp);
        for (const key of METRIC_DATA_KEYS) {
          if (isObj(m[key])) dataPoints += list(m[key] as Obj, "dataPoints", `${mp}.${key}`).length;
        }
      });
    });
  });
  return { dataPoints };
}
