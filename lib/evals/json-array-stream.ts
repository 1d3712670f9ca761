// The elements of a top-level JSON array, one at a time, from text arriving in chunks:
// LongMemEval and LoCoMo publish one JSON array per file (LongMemEval_S is ~270 MB), so
// an import holds one record (one question's haystack, one LoCoMo conversation) in memory,
// never the file. A scanner tracks strings, escapes and nesting depth; each element's text
// is handed to JSON.parse as it closes.

export type ArrayElement = { index: number; text: string };

export class JsonArrayError extends Error {}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

export async function* jsonArrayElements(chunks: AsyncIterable<string> | Iterable<string>): AsyncGenerator<ArrayElement> {
  let started = false;
  let ended = false;
  let depth = 0; // nesting inside the current element
  let inString = false;
  let escaped = false;
  let parts: string[] = [];
  let from = -1; // start of the element within the current chunk, or -1 when it began earlier / none
  let inElement = false;
  let index = 0;
  for await (const chunk of chunks) {
    from = inElement ? 0 : -1;
    for (let i = 0; i < chunk.length; i++) {
      if (inString) {
        if (escaped) {
          escaped = false;
          continue;
        }
        // Most of a record is string content: jump to its next quote or backslash.
        const q = chunk.indexOf('"', i);
        const b = chunk.indexOf("\\", i);
        if (q === -1 && b === -1) break; // the string goes on in the next chunk
        i = q === -1 ? b : b === -1 ? q : Math.min(q, b);
        if (chunk.charCodeAt(i) === BACKSLASH) escaped = true;
        else inString = false;
        continue;
      }
      const c = chunk.charCodeAt(i);
      if (ended) {
        if (!isSpace(c)) throw new JsonArrayError(`text after the closing ] of the array`);
        continue;
      }
      if (!started) {
        if (c === 0x5b) started = true;
        else if (c !== 0xfeff && !isSpace(c)) throw new JsonArrayError(`the file is not a JSON array (it starts with ${JSON.stringify(chunk[i])})`);
        continue;
      }
      if (!inElement) {
        if (isSpace(c) || c === 0x2c) continue;
        if (c === 0x5d) {
          ended = true;
          continue;
        }
        // Both formats' records are objects: a bare value is no record.
        if (c !== 0x7b && c !== 0x5b) throw new JsonArrayError(`record ${index} is not an object`);
        inElement = true;
        from = i;
        depth = 0;
      }
      if (c === QUOTE) inString = true;
      else if (c === 0x7b || c === 0x5b) depth++;
      else if (c === 0x7d || c === 0x5d) depth--;
      if (depth === 0) {
        parts.push(chunk.slice(from, i + 1));
        yield { index: index++, text: parts.join("") };
        parts = [];
        inElement = false;
        from = -1;
      }
    }
    if (inElement) parts.push(chunk.slice(Math.max(from, 0)));
  }
  if (!started) throw new JsonArrayError("the file is empty");
  if (!ended) throw new JsonArrayError(`the array is not closed (the file ends inside record ${index})`);
}
