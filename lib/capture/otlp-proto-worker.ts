// Worker thread: decodes one OTLP protobuf body for otlp-proto-off-thread.ts, with the same
// decoders the request thread uses (so what it hands back is what an inline decode gives), under
// the heap cap and time limit its parent sets (it is terminated past either) and a budget of
// messages. No "server-only" here: this module is the entry of a worker, not of a request.
//
// The decoded value is not posted back whole: deserialising one cloned value is one uninterrupted
// task of the receiving thread (a 56 MB batch: about 0.3 s under load, docs/benchmarks.md section
// 35). So it goes back as its shell (resources, counts) and then its spans or log records in
// groups of about `groupWeight` (values, and strings at 256 characters a value), one group each
// time the parent asks for the next. A span or record holding more than `maxItemWeight` values
// (a kvlist of 100 000 keys took 0.4 s to deserialise) refuses the request, naming it.
import { parentPort, workerData } from "node:worker_threads";
import { countMetricsProto, decodeLogsProto } from "./otlp-logs";
import { decodeTracesProto, MessageBudgetExceeded, withMessageBudget } from "./otlp-proto";
import { OtlpProblem } from "./otlp-types";

export type ProtoKind = "traces" | "logs" | "metrics";
export type ProtoWorkerData = { bytes: Uint8Array; kind: ProtoKind; maxMessages: number; maxItemWeight: number; groupWeight: number };
export type FromProtoWorker =
  | { type: "shell"; value: Record<string, unknown> }
  | { type: "items"; resource: number; items: unknown[] }
  | { type: "end" }
  | { type: "problem"; field: string; problem: string }
  | { type: "over"; limit: "messages" | "item_weight"; message: string; field: string };

const DECODERS: Record<ProtoKind, (b: Uint8Array) => unknown> = { traces: decodeTracesProto, logs: decodeLogsProto, metrics: countMetricsProto };
/** Where each kind keeps its resources, and the items of a resource. */
const SHAPES: Partial<Record<ProtoKind, { resources: string; items: string }>> = { traces: { resources: "resourceSpans", items: "spans" }, logs: { resources: "resourceLogs", items: "records" } };

/**
 * Values in `v` (each attribute value, element, key), walking at most `stop` of them; with
 * `charsPerValue`, its strings count too, one value per that many characters.
 */
function weight(v: unknown, stop: number, charsPerValue = Infinity): number {
  let n = 0;
  const stack = [v];
  while (stack.length && n <= stop) {
    const x = stack.pop();
    n++;
    if (typeof x === "string") n += x.length / charsPerValue;
    if (x === null || typeof x !== "object") continue;
    if (Array.isArray(x)) for (const e of x) stack.push(e);
    else for (const k in x) stack.push((x as Record<string, unknown>)[k]);
  }
  return n;
}

function* run(d: ProtoWorkerData): Generator<FromProtoWorker> {
  let value: Record<string, unknown>;
  try {
    value = withMessageBudget(d.maxMessages, () => DECODERS[d.kind](d.bytes)) as Record<string, unknown>;
  } catch (e) {
    if (e instanceof OtlpProblem) {
      yield { type: "problem", field: e.field, problem: e.problem };
      return;
    }
    if (e instanceof MessageBudgetExceeded) {
      yield { type: "over", limit: "messages", field: "body", message: `${e.message} (the most one request may hold)` };
      return;
    }
    throw e;
  }
  const shape = SHAPES[d.kind];
  if (!shape) {
    yield { type: "shell", value };
    yield { type: "end" };
    return;
  }
  const resources = value[shape.resources] as Record<string, unknown>[];
  // Every item weighed before anything is sent: a refusal comes before the first group.
  for (const r of resources) {
    for (const item of r[shape.items] as { path: string }[]) {
      if (weight(item, d.maxItemWeight) > d.maxItemWeight) {
        yield { type: "over", limit: "item_weight", field: item.path, message: `more than ${d.maxItemWeight} values in one ${d.kind === "traces" ? "span" : "log record"}` };
        return;
      }
    }
  }
  const items = resources.map((r) => r[shape.items] as unknown[]);
  yield { type: "shell", value: { ...value, [shape.resources]: resources.map((r) => ({ ...r, [shape.items]: [] })) } };
  for (let ri = 0; ri < items.length; ri++) {
    let group: unknown[] = [];
    let w = 0;
    for (let i = 0; i < items[ri].length; i++) {
      const item = items[ri][i];
      items[ri][i] = null; // sent: its memory can go
      group.push(item);
      w += weight(item, d.groupWeight, 256);
      if (w >= d.groupWeight) {
        yield { type: "items", resource: ri, items: group };
        group = [];
        w = 0;
      }
    }
    if (group.length) yield { type: "items", resource: ri, items: group };
  }
  yield { type: "end" };
}

const steps = run(workerData as ProtoWorkerData);
const next = () => {
  const step = steps.next();
  if (!step.done) parentPort!.postMessage(step.value);
};
// The parent asks for each message after the first: it deserialises one group at a time.
parentPort!.on("message", next);
next();
