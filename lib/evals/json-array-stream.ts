// The elements of a top-level JSON array, one at a time, from text arriving in chunks:
// LongMemEval and LoCoMo publish one JSON array per file (LongMemEval_S is ~270 MB), so
// an import holds one record (one question's haystack, one LoCoMo conversation) in memory,
// never the file. A scanner tracks strings, escapes and nesting depth; each element's text
// is handed to JSON.parse as it closes.

export type ArrayElement = { index: number; text: string };

export class JsonArrayError extends Error {}

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
      const ch = chunk[i];
      if (ended) {
        if (!/\s/.test(ch)) throw new JsonArrayError(`text after the closing ] of the array`);
        continue;
      }
      if (!started) {
        if (ch === "[") started = true;
        else if (ch === "\uFEFF" || /\s/.test(ch)) continue;
        else throw new JsonArrayError(`the file is not a JSON array (it starts with ${JSON.stringify(ch)})`);
        continue;
      }
      if (inString) {
        if (escaped) escaped = false;
        else if (ch === "\\") escaped = true;
        else if (ch === '"') inString = false;
        continue;
      }
      if (!inElement) {
        if (/\s/.test(ch) || ch === ",") continue;
        if (ch === "]") {
          ended = true;
          continue;
        }
        // Both formats' records are objects: a bare value is no record.
        if (ch !== "{" && ch !== "[") throw new JsonArrayError(`record ${index} is not an object`);
        inElement = true;
        from = i;
        depth = 0;
      }
      if (ch === '"') inString = true;
      else if (ch === "{" || ch === "[") depth++;
      else if (ch === "}" || ch === "]") depth--;
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
