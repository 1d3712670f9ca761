// A JSON array read element by element from a byte stream: the scanner only finds where each
// top-level element begins and ends (brackets and braces outside strings, string quotes and
// escapes), and each element is parsed by JSON.parse. An export's conversations.json runs to
// hundreds of MB, so it cannot be parsed whole; a streaming tokenizer written in JavaScript
// (@streamparser/json) builds every value a character at a time, about 10 MB/s, which was the
// largest cost of a ChatGPT import. Scanning bytes and parsing natively is several times
// faster, and memory stays bounded by one element (a conversation) at a time.
//
// Bytes of a multi-byte UTF-8 character are all >= 0x80, so they never look like a quote, a
// backslash or a bracket: the scan works on bytes without decoding.
//
// Two readers use it: the import pipeline (lib/imports/start-upload.ts) pushes chunks into a
// JsonArraySplitter and takes each conversation in `onValue`; the evals import
// (lib/evals/benchmark-records.ts) pulls records from `jsonArrayValues`, awaiting between
// them. Errors carry a kind, so each caller words them its own way.

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;
const BOM = [0xef, 0xbb, 0xbf];

const isSpace = (b: number) => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;

/** Where the scan is between elements. */
type Phase =
  | "start" // before the top-level value
  | "first" // after "[": an element or "]"
  | "next" // after a ",": an element
  | "element" // inside an element
  | "after" // after an element: "," or "]"
  | "done" // after the closing "]": only whitespace
  | "object"; // the top-level value is an object, not an array: nothing more is read

/**
 * What went wrong: "empty" (no value at all), "not_array" (the top-level value is not an array),
 * "not_object" (a scalar element where `scalars: false`), "element" (an element JSON.parse
 * refuses), "unexpected" (a misplaced "," or "]", a missing comma), "unclosed" (the input ends
 * before the closing "]"), "trailing" (more than whitespace after it), "too_large" (an element over
 * `maxElementBytes`, found before its bytes are held), "too_deep" (nesting over `maxDepth`),
 * "too_many_values" (more objects and arrays in one element than `maxContainers`).
 */
export type JsonArrayErrorKind = "empty" | "not_array" | "not_object" | "element" | "unexpected" | "unclosed" | "trailing" | "too_large" | "too_deep" | "too_many_values";

export class JsonArraySyntaxError extends Error {
  constructor(
    readonly kind: JsonArrayErrorKind,
    message: string,
    /** How many elements were read before the error: the index of the element it is in, or of the next. */
    readonly index: number,
    /** The character found where it should not be ("not_array", "not_object", "unexpected", "trailing"), decoded. */
    readonly found = "",
    /** JSON.parse's own message ("element"). */
    readonly parseMessage = "",
  ) {
    super(message);
  }
}

export type SplitterOptions = {
  /** false: every element must be an object or an array; a scalar is a "not_object" error as soon as it begins. */
  scalars?: boolean;
  /** An element longer than this is a "too_large" error as soon as its bytes pass it. */
  maxElementBytes?: number;
  /** Arrays and objects nested deeper than this (the top-level array not counted) are a "too_deep" error. */
  maxDepth?: number;
  /** Objects and arrays one element may hold (JSON.parse's cost grows with them, not only with the bytes). */
  maxContainers?: number;
  /** Only find the elements (onValue gets undefined): nothing is held or parsed, for a first pass that checks the bounds. */
  scanOnly?: boolean;
  /**
   * Elements whose parse would block this thread too long are parsed by `parse` (a worker:
   * lib/streams/json-off-thread.ts) instead of JSON.parse here. The cost is estimated from what
   * the scan already counts: the element's bytes plus CONTAINER_COST per object or array (a
   * conversation of many small nodes costs more than its bytes say). Their values, and every
   * value after them, reach onValue in order when the caller awaits settled().
   */
  offThread?: { fromCost: number; parse: (bytes: Uint8Array, index: number) => Promise<unknown> };
};

/**
 * What one object or array adds to an element's parse cost, in bytes of text: measured in
 * process (docs/benchmarks.md section 35), 1 MB of 200 large nodes parsed in 58 ms and 3.4 MB of
 * 12 000 small nodes (~100 000 objects and arrays) in 491 ms, so a container costs about as much
 * as 50-60 bytes of text.
 */
export const CONTAINER_COST = 64;

/** How many backslashes run right before `at`, not looking before `from`. */
function backslashesBefore(chunk: Uint8Array, at: number, from: number): number {
  let k = at;
  while (k > from && chunk[k - 1] === BACKSLASH) k--;
  return at - k;
}

export class JsonArraySplitter {
  /** Called with each element, parsed, and its index in the array. */
  onValue: (value: unknown, index: number) => void = () => {};
  private phase: Phase = "start";
  private depth = 0;
  private inString = false;
  private escaped = false;
  /** The element is a bare scalar (number, true, false, null): it ends before ",", "]" or whitespace. */
  private scalar = false;
  /** Earlier chunks' bytes of the element being read. */
  private parts: Uint8Array[] = [];
  private index = 0;
  private offset = 0;
  private readonly scalars: boolean;
  /** Bytes of the element being read, in earlier chunks. */
  private held = 0;
  private readonly maxBytes: number;
  private readonly maxDepth: number;
  private readonly maxContainers: number;
  /** Objects and arrays of the element being read. */
  private containers = 0;
  private readonly scanOnly: boolean;
  private readonly offThread: SplitterOptions["offThread"];
  /** Values not yet handed to onValue, in order: an element parsed off-thread, and the elements after it. */
  private waiting: Promise<void> | null = null;

  constructor(opts: SplitterOptions = {}) {
    this.scalars = opts.scalars ?? true;
    this.maxBytes = opts.maxElementBytes ?? Infinity;
    this.maxDepth = opts.maxDepth ?? Infinity;
    this.maxContainers = opts.maxContainers ?? Infinity;
    this.scanOnly = opts.scanOnly ?? false;
    this.offThread = opts.offThread;
  }

  /**
   * Resolves when every element found so far has reached onValue; rejects with the error of an
   * element parsed off-thread (its parser's). The caller awaits it before writing the next chunk,
   * so reading waits for the worker (backpressure): at most one chunk's elements wait here.
   */
  async settled(): Promise<void> {
    while (this.waiting) {
      const w = this.waiting;
      await w;
      if (this.waiting === w) this.waiting = null;
    }
  }

  /** `deliver` runs after the values waiting before it. */
  private later(deliver: () => void | Promise<void>) {
    const next = (this.waiting ?? Promise.resolve()).then(deliver);
    next.catch(() => {}); // met by settled()
    this.waiting = next;
  }

  /** True when the top-level value was an object (not an array of conversations). */
  get topLevelObject(): boolean {
    return this.phase === "object";
  }

  get ended(): boolean {
    return this.phase === "done" || this.phase === "object";
  }

  write(chunk: Uint8Array): void {
    let i = 0;
    const n = chunk.length;
    let start = this.phase === "element" ? 0 : -1;
    for (; i < n; i++) {
      const b = chunk[i];
      if (this.phase === "element") {
        if (this.inString) {
          if (this.escaped) {
            this.escaped = false;
            continue;
          }
          // Most of an export's bytes are inside strings (the messages' texts): jump to the
          // string's closing quote with a native search instead of a byte at a time. A quote
          // after an odd run of backslashes is escaped, and the search goes on past it.
          let q = chunk.indexOf(QUOTE, i);
          while (q >= 0 && backslashesBefore(chunk, q, i) % 2 === 1) q = chunk.indexOf(QUOTE, q + 1);
          if (q < 0) {
            // The string goes on in the next chunk: a backslash ending this one escapes its first byte.
            this.escaped = backslashesBefore(chunk, n, i) % 2 === 1;
            i = n;
            continue;
          }
          i = q;
          this.inString = false;
          if (this.depth === 0) this.emit(chunk, start, i + 1);
          continue;
        }
        if (this.scalar) {
          if (b === COMMA || b === CLOSE_BRACKET || isSpace(b)) {
            this.emit(chunk, start, i);
            i--; // the separator is read again by the "after" phase
          }
          continue;
        }
        if (b === QUOTE) this.inString = true;
        else if (b === OPEN_BRACE || b === OPEN_BRACKET) {
          if (++this.depth > this.maxDepth) throw new JsonArraySyntaxError("too_deep", `Element ${this.index} is nested deeper than ${this.maxDepth}`, this.index);
          if (++this.containers > this.maxContainers) throw new JsonArraySyntaxError("too_many_values", `Element ${this.index} holds more than ${this.maxContainers} objects and arrays`, this.index);
        } else if (b === CLOSE_BRACE || b === CLOSE_BRACKET) {
          if (--this.depth === 0) this.emit(chunk, start, i + 1);
        }
        continue;
      }
      if (isSpace(b)) continue;
      // A byte-order mark (EF BB BF) before the value, whatever the chunks.
      if (this.phase === "start" && this.offset + i < 3 && b === BOM[this.offset + i]) continue;
      switch (this.phase) {
        case "start":
          if (b === OPEN_BRACKET) this.phase = "first";
          else if (b === OPEN_BRACE) {
            this.phase = "object";
            return;
          } else throw this.unexpected(b, i, chunk);
          break;
        case "first":
        case "next":
          if (b === CLOSE_BRACKET && this.phase === "first") {
            this.phase = "done";
            break;
          }
          if (b === CLOSE_BRACKET || b === COMMA) throw this.unexpected(b, i, chunk);
          if (!this.scalars && b !== OPEN_BRACE && b !== OPEN_BRACKET) {
            throw new JsonArraySyntaxError("not_object", `Element ${this.index} is not an object or an array`, this.index, charAt(chunk, i));
          }
          this.phase = "element";
          start = i;
          this.depth = b === OPEN_BRACE || b === OPEN_BRACKET ? 1 : 0;
          this.containers = this.depth;
          this.inString = b === QUOTE;
          this.scalar = !this.inString && this.depth === 0;
          break;
        case "after":
          if (b === COMMA) this.phase = "next";
          else if (b === CLOSE_BRACKET) this.phase = "done";
          else throw this.unexpected(b, i, chunk);
          break;
        case "done":
          throw this.unexpected(b, i, chunk);
        case "object":
          return;
      }
    }
    if (this.phase === "element" && start >= 0 && start < n) {
      this.held += n - start;
      if (this.held > this.maxBytes) throw new JsonArraySyntaxError("too_large", `Element ${this.index} is longer than ${this.maxBytes} bytes`, this.index);
      if (!this.scanOnly) this.parts.push(chunk.subarray(start));
    }
    this.offset += n;
  }

  /** The end of the input: an array left open is a syntax error. */
  end(): void {
    if (this.phase === "element" && this.scalar) {
      // A bare scalar cannot end an array: "]" is missing either way.
      throw new JsonArraySyntaxError("unclosed", `Unexpected end of input in element ${this.index}`, this.index);
    }
    if (this.phase === "start") throw new JsonArraySyntaxError("empty", "Unexpected end of input: no JSON value", 0);
    if (this.phase !== "done" && this.phase !== "object") {
      throw new JsonArraySyntaxError("unclosed", `Unexpected end of input after element ${this.index}: the array is not closed`, this.index);
    }
  }

  private emit(chunk: Uint8Array, start: number, end: number): void {
    const length = this.held + end - start;
    this.held = 0;
    if (length > this.maxBytes) throw new JsonArraySyntaxError("too_large", `Element ${this.index} is longer than ${this.maxBytes} bytes`, this.index);
    if (this.scanOnly) {
      this.phase = "after";
      this.scalar = false;
      this.onValue(undefined, this.index++);
      return;
    }
    const tail = chunk.subarray(start, end);
    const bytes = this.parts.length ? Buffer.concat([...this.parts, tail]) : Buffer.from(tail.buffer, tail.byteOffset, tail.byteLength);
    this.parts = [];
    this.phase = "after";
    this.scalar = false;
    const index = this.index++;
    if (this.offThread && length + this.containers * CONTAINER_COST >= this.offThread.fromCost) {
      const parsed = this.offThread.parse(bytes, index);
      parsed.catch(() => {}); // met by settled()
      this.later(async () => this.onValue(await parsed, index));
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(bytes.toString("utf8"));
    } catch (e) {
      const why = (e as Error).message;
      throw new JsonArraySyntaxError("element", `element ${index}: ${why}`, index, "", why);
    }
    if (this.waiting) this.later(() => this.onValue(value, index));
    else this.onValue(value, index);
  }

  private unexpected(b: number, at: number, chunk: Uint8Array): JsonArraySyntaxError {
    const kind = this.phase === "start" ? "not_array" : this.phase === "done" ? "trailing" : "unexpected";
    return new JsonArraySyntaxError(kind, `Unexpected ${JSON.stringify(String.fromCharCode(b))} at byte ${this.offset + at}, after ${this.index} element(s)`, this.index, charAt(chunk, at));
  }
}

/** The character beginning at byte `at`, decoded ("\ufffd" when its bytes run on into the next chunk). */
function charAt(chunk: Uint8Array, at: number): string {
  const text = Buffer.from(chunk.buffer, chunk.byteOffset + at, Math.min(4, chunk.length - at)).toString("utf8");
  return String.fromCodePoint(text.codePointAt(0) ?? 0xfffd);
}

/** Bytes fed to the splitter at a time by jsonArrayValues: what waits to be consumed is the elements that end in one slice. */
const SLICE = 64 * 1024;

const isHighSurrogate = (c: number) => c >= 0xd800 && c <= 0xdbff;

/** Chunks as UTF-8 bytes in slices of at most SLICE bytes (text: SLICE UTF-16 units, a surrogate pair never cut). */
async function* byteSlices(chunks: AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string>): AsyncGenerator<Uint8Array> {
  let held = ""; // a high surrogate that ended a text chunk: the next chunk begins with its low half
  for await (const chunk of chunks) {
    if (typeof chunk !== "string") {
      for (let i = 0; i < chunk.length; i += SLICE) yield chunk.subarray(i, i + SLICE);
      continue;
    }
    let text = held + chunk;
    held = "";
    if (text.length && isHighSurrogate(text.charCodeAt(text.length - 1))) {
      held = text.slice(-1);
      text = text.slice(0, -1);
    }
    for (let i = 0; i < text.length; ) {
      let j = Math.min(i + SLICE, text.length);
      if (j < text.length && isHighSurrogate(text.charCodeAt(j - 1))) j--;
      yield Buffer.from(text.slice(i, j), "utf8");
      i = j;
    }
  }
  if (held) yield Buffer.from(held, "utf8");
}

/**
 * The elements of a JSON array, parsed, one at a time, for a reader that awaits between them
 * (the evals import writes each record in a transaction of its own). Chunks are bytes or text
 * (text is encoded to UTF-8 a slice at a time, so a whole file's text given as one chunk is not
 * copied whole); memory holds the chunk being read and the elements ending in one 64 KiB slice.
 * A top-level object is a "not_array" error here. On an error, the elements read before it are
 * yielded first, then it is thrown.
 */
export async function* jsonArrayValues(
  chunks: AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string>,
  opts: SplitterOptions = {},
): AsyncGenerator<{ index: number; value: unknown }> {
  const splitter = new JsonArraySplitter(opts);
  let ready: { index: number; value: unknown }[] = [];
  splitter.onValue = (value, index) => ready.push({ index, value });
  for await (const bytes of byteSlices(chunks)) {
    let failure: unknown = null;
    try {
      splitter.write(bytes);
      await splitter.settled();
      if (splitter.topLevelObject) failure = new JsonArraySyntaxError("not_array", "The top-level value is an object, not an array", 0, "{");
    } catch (e) {
      failure = e;
    }
    const batch = ready;
    ready = [];
    yield* batch;
    if (failure) throw failure;
  }
  splitter.end();
}
