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

export class JsonArraySyntaxError extends Error {}

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
        else if (b === OPEN_BRACE || b === OPEN_BRACKET) this.depth++;
        else if (b === CLOSE_BRACE || b === CLOSE_BRACKET) {
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
          } else throw this.unexpected(b, i);
          break;
        case "first":
        case "next":
          if (b === CLOSE_BRACKET && this.phase === "first") {
            this.phase = "done";
            break;
          }
          if (b === CLOSE_BRACKET || b === COMMA) throw this.unexpected(b, i);
          this.phase = "element";
          start = i;
          this.depth = b === OPEN_BRACE || b === OPEN_BRACKET ? 1 : 0;
          this.inString = b === QUOTE;
          this.scalar = !this.inString && this.depth === 0;
          break;
        case "after":
          if (b === COMMA) this.phase = "next";
          else if (b === CLOSE_BRACKET) this.phase = "done";
          else throw this.unexpected(b, i);
          break;
        case "done":
          throw this.unexpected(b, i);
        case "object":
          return;
      }
    }
    if (this.phase === "element" && start >= 0 && start < n) this.parts.push(chunk.subarray(start));
    this.offset += n;
  }

  /** The end of the input: an array left open is a syntax error. */
  end(): void {
    if (this.phase === "element" && this.scalar) {
      // A bare scalar cannot end an array: "]" is missing either way.
      throw new JsonArraySyntaxError(`Unexpected end of input in element ${this.index}`);
    }
    if (this.phase !== "done" && this.phase !== "object") throw new JsonArraySyntaxError(this.phase === "start" ? "Unexpected end of input: no JSON value" : `Unexpected end of input after element ${this.index}: the array is not closed`);
  }

  private emit(chunk: Uint8Array, start: number, end: number): void {
    const tail = chunk.subarray(start, end);
    const bytes = this.parts.length ? Buffer.concat([...this.parts, tail]) : Buffer.from(tail.buffer, tail.byteOffset, tail.byteLength);
    this.parts = [];
    this.phase = "after";
    this.scalar = false;
    let value: unknown;
    try {
      value = JSON.parse(bytes.toString("utf8"));
    } catch (e) {
      throw new JsonArraySyntaxError(`element ${this.index}: ${(e as Error).message}`);
    }
    this.onValue(value, this.index++);
  }

  private unexpected(b: number, at: number): JsonArraySyntaxError {
    return new JsonArraySyntaxError(`Unexpected ${JSON.stringify(String.fromCharCode(b))} at byte ${this.offset + at}, after ${this.index} element(s)`);
  }
}
