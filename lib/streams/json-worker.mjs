// Worker thread: parses one JSON document of untrusted size (an uploaded import file, a large
// OTLP/JSON body) for json-off-thread.ts, under the heap cap and time limit its parent sets (it
// is terminated past either). A plain .mjs read at run time, as sqlite-worker.mjs is: the bundler
// leaves it alone.
//
// The parsed value is not posted back whole: deserialising a cloned value costs the receiving
// thread about twice what JSON.parse of its text does, in one uninterrupted task (a 174 MB
// document: 4.9 s against 2.0 s). So the value goes back as JSON text in slices of about
// `sliceBytes`, one slice each time the parent asks for the next; the parent parses a slice and
// lets other requests run before asking again. The arrays split are the document's own (a
// top-level array) and the arrays directly under a top-level object's keys, where every format
// read this way keeps its records (conversations, agents, results, resourceSpans, ...).
//
// Messages to the parent: {type: "shape", ...} once parsed, then {type: "slice", ...} per request,
// then {type: "end"}; or {type: "failed", message, over?} for a document that is not JSON (nor JSON
// lines), or would cost more than allowed to parse (over: "memory" or "depth").
import fs from "node:fs";
import { parentPort, workerData } from "node:worker_threads";

const { file, bytes, jsonl, fatalUtf8, sliceBytes, maxHeapMb, maxDepth } = workerData;

/**
 * What parsing `data` would cost before it is parsed: JSON.parse cannot be interrupted (a worker
 * that is told to stop mid-parse goes on until it returns) and, near its heap cap, collects garbage
 * for minutes rather than failing (30 MB of `[]` under a 128 MB cap did not end in 90 s). So the
 * bytes are scanned first (outside strings: containers, values, nesting) and a document whose
 * parsed size would pass half the cap is refused without being parsed. The estimate: the text as a
 * string (one byte a character, two when it holds any past U+00FF), about 48 bytes an object or
 * array, 16 a value (a slot, or a heap number). JSON lines are scanned alike: their nesting resets
 * at each line's end since a line's brackets close on it.
 */
function estimate(data) {
  let containers = 0;
  let values = 0;
  let depth = 0;
  let deepest = 0;
  let wide = false;
  let inString = false;
  for (let i = 0; i < data.length; i++) {
    const c = data[i];
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
      else if (c >= 0xc4) wide = true; // a lead byte of a character past U+00FF
      continue;
    }
    if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      containers++;
      values++;
      if (++depth > deepest) deepest = depth;
    } else if (c === 0x5d || c === 0x7d) depth--;
    else if (c === 0x2c || c === 0x3a) values++;
  }
  const bytes = data.length * (wide ? 2 : 1) + containers * 48 + values * 16;
  return { bytes, containers, values, deepest };
}

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

/** Slices of `items` (already JSON texts) of about sliceBytes each, as `[a,b,...]` texts. */
function* group(texts) {
  let parts = [];
  let size = 0;
  for (const t of texts) {
    parts.push(t);
    size += t.length;
    if (size >= sliceBytes) {
      yield `[${parts.join(",")}]`;
      parts = [];
      size = 0;
    }
  }
  if (parts.length) yield `[${parts.join(",")}]`;
}

function* stringified(array) {
  for (const v of array) yield v === undefined ? "null" : JSON.stringify(v);
}

/** The shape message and the slices that fill its arrays, for one parsed value. */
function plan(value) {
  if (Array.isArray(value)) return { shape: { type: "shape", kind: "json", skeleton: "[]", split: [null] }, slices: [{ key: null, array: value }] };
  if (value === null || typeof value !== "object") return { shape: { type: "shape", kind: "json", skeleton: JSON.stringify(value), split: [] }, slices: [] };
  const rest = Object.create(null); // a "__proto__" key stays an own key
  const split = [];
  const slices = [];
  for (const [k, v] of Object.entries(value)) {
    if (Array.isArray(v) && v.length > 1) {
      rest[k] = [];
      split.push(k);
      slices.push({ key: k, array: v });
    } else rest[k] = v;
  }
  return { shape: { type: "shape", kind: "json", skeleton: JSON.stringify(rest), split }, slices };
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
    const { shape, slices } = plan(value);
    value = null;
    yield shape;
    for (const s of slices) {
      for (const slice of group(stringified(s.array))) yield { type: "slice", key: s.key, text: slice };
      s.array = null; // sent: its memory can go
    }
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
  for (const slice of group(good)) yield { type: "slice", key: null, text: slice };
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
