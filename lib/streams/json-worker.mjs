// Worker thread: parses one JSON document of untrusted size (an uploaded import file, a large
// OTLP/JSON body) for json-off-thread.ts, under the heap cap and time limit its parent sets (it
// is terminated past either). A plain .mjs read at run time, as sqlite-worker.mjs is: the bundler
// leaves it alone.
//
// The parsed value is not posted back whole: deserialising a cloned value costs the receiving
// thread about twice what JSON.parse of its text does, in one uninterrupted task (a 174 MB
// document: 4.9 s against 2.0 s). So the value goes back as JSON text in slices of about
// `sliceBytes`, one slice each time the parent asks for the next; the parent parses a slice and
// lets other requests run before asking again. Any array or object larger than a slice is split,
// at any depth (rebuild()).
//
// Messages to the parent: {type: "shape", ...} once parsed, then {type: "slice", ...} per request,
// then {type: "end"}; or {type: "failed", message, over?} for a document that is not JSON (nor JSON
// lines), or would cost more than allowed to parse (over: "memory" or "depth").
import fs from "node:fs";
import { parentPort, workerData } from "node:worker_threads";
import { estimate } from "./json-estimate.mjs";

const { file, bytes, jsonl, fatalUtf8, sliceBytes, maxHeapMb, maxDepth } = workerData;

function read() {
  const data = bytes ?? fs.readFileSync(file);
  const cost = estimate(data);
  if (cost.deepest > maxDepth) return { over: "depth", message: `nested ${cost.deepest} deep (at most ${maxDepth})` };
  if (cost.bytes > (maxHeapMb * 1024 * 1024) / 2) {
    const mb = Math.ceil(cost.bytes / (1024 * 1024));
    return { over: "memory", message: `parsing would need about ${mb} MB (${cost.containers} objects and arrays, ${cost.values} values); the parser has ${maxHeapMb} MB` };
  }
  const t = new TextDecoder("utf-8", { fatal: !!fatalUtf8 }).decode(data);
  return { text: t.charCodeAt(0) === 0xfeff ? t.slice(1) : t };
}

/** True when `v` as JSON text is longer than `limit` characters: walks at most about `limit` worth of it. */
function larger(v, limit) {
  let left = limit;
  const stack = [v];
  while (stack.length) {
    const x = stack.pop();
    if (typeof x === "string") left -= x.length + 2;
    else if (x === null || typeof x !== "object") left -= 8;
    else if (Array.isArray(x)) {
      left -= 2 + x.length;
      for (const e of x) stack.push(e);
    } else {
      for (const k in x) {
        left -= k.length + 4;
        stack.push(x[k]);
      }
    }
    if (left < 0) return true;
  }
  return false;
}

/**
 * The messages that rebuild `node` at `path` (its container already there, empty): its small
 * members in slices of about sliceBytes (`items`: an array's next elements, or an object's next
 * keys), and each member larger than a slice as an empty container followed by its own messages.
 * So a record of any shape (OTLP's single resourceSpans holding every span) comes back a slice at a
 * time, in order.
 */
function* rebuild(node, path) {
  const isArray = Array.isArray(node);
  let parts = [];
  let size = 0;
  const flush = () => {
    const text = isArray ? `[${parts.join(",")}]` : `{${parts.join(",")}}`;
    parts = [];
    size = 0;
    return { type: "slice", path, text };
  };
  const keys = isArray ? node.keys() : Object.keys(node);
  for (const k of keys) {
    const v = node[k];
    const big = v !== null && typeof v === "object" && larger(v, sliceBytes);
    const text = big ? (Array.isArray(v) ? "[]" : "{}") : v === undefined ? "null" : JSON.stringify(v);
    parts.push(isArray ? text : `${JSON.stringify(k)}:${text}`);
    size += text.length;
    if (big) {
      yield flush();
      yield* rebuild(v, [...path, k]);
      if (isArray) node[k] = null; // sent: its memory can go
      else delete node[k];
    } else if (size >= sliceBytes) yield flush();
  }
  if (parts.length) yield flush();
}

/** JSON lines: each line's text, grouped into slices. */
function* lineSlices(good) {
  let parts = [];
  let size = 0;
  for (const t of good) {
    parts.push(t);
    size += t.length;
    if (size >= sliceBytes) {
      yield { type: "slice", path: [], text: `[${parts.join(",")}]` };
      parts = [];
      size = 0;
    }
  }
  if (parts.length) yield { type: "slice", path: [], text: `[${parts.join(",")}]` };
}

/** JSON lines: each line parsed here (a bad one is named by its line), its text sent back. */
function lines(t) {
  const good = [];
  const bad = [];
  t.split(/\r?\n/).forEach((raw, i) => {
    if (!raw.trim()) return;
    const record = `line ${i + 1}`;
    try {
      JSON.parse(raw);
      good.push(JSON.stringify({ record, raw }));
    } catch (e) {
      bad.push({ record, message: `not JSON: ${e.message}` });
    }
  });
  return { good, bad };
}

function* run() {
  let t;
  try {
    const r = read();
    if (r.over) {
      yield { type: "failed", over: r.over, message: r.message };
      return;
    }
    t = r.text;
  } catch (e) {
    yield { type: "failed", message: `not UTF-8: ${e.message}` };
    return;
  }
  const trimmed = t.trim();
  if (!trimmed) {
    yield { type: "failed", empty: true, message: "empty" };
    return;
  }
  let value;
  let parsed = false;
  let syntax = "";
  try {
    value = JSON.parse(trimmed);
    parsed = true;
  } catch (e) {
    syntax = e.message;
  }
  if (parsed) {
    t = null;
    if (value === null || typeof value !== "object") {
      yield { type: "shape", kind: "json", skeleton: JSON.stringify(value) };
    } else {
      yield { type: "shape", kind: "json", skeleton: Array.isArray(value) ? "[]" : "{}" };
      yield* rebuild(value, []);
    }
    value = null;
    yield { type: "end" };
    return;
  }
  if (!jsonl) {
    yield { type: "failed", message: syntax };
    return;
  }
  const { good, bad } = lines(t);
  t = null;
  if (!good.length) {
    yield { type: "failed", message: bad[0] ? `${bad[0].record}: ${bad[0].message}` : "no JSON" };
    return;
  }
  yield { type: "shape", kind: "jsonl", bad };
  yield* lineSlices(good);
  yield { type: "end" };
}

const steps = run();
const next = () => {
  let step;
  try {
    step = steps.next();
  } catch (e) {
    step = { value: { type: "failed", message: e.message }, done: false };
  }
  if (!step.done) parentPort.postMessage(step.value);
};
// The parent asks for each message after the first: it parses one slice at a time.
parentPort.on("message", next);
next();
