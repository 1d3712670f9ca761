import { jsonArrayValues, JsonArraySyntaxError } from "../streams/json-array-splitter";
import { RecordError } from "./benchmark-formats";

// The records of a LongMemEval or LoCoMo file (one JSON array per file; LongMemEval_S is
// ~270 MB), parsed one at a time by the byte scanner the import pipeline also uses
// (lib/streams/json-array-splitter.ts), so an import holds one record in memory, never the file.
// The scanner's errors are worded here as the evals import has always worded them.

/** The file is no JSON array of records: import-benchmark.ts answers it as a 422 on "content". */
export class BenchmarkFileError extends Error {}

export type BenchmarkChunks = AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string>;

export async function* benchmarkRecords(chunks: BenchmarkChunks): AsyncGenerator<{ index: number; value: unknown }> {
  try {
    // Both formats' records are objects: a bare value is no record.
    yield* jsonArrayValues(chunks, { scalars: false });
  } catch (e) {
    if (e instanceof JsonArraySyntaxError) throw fileError(e);
    throw e;
  }
}

function fileError(e: JsonArraySyntaxError): Error {
  switch (e.kind) {
    case "empty":
      return new BenchmarkFileError("the file is empty");
    case "not_array":
      // As the text scanner this replaced named it: the first UTF-16 unit.
      return new BenchmarkFileError(`the file is not a JSON array (it starts with ${JSON.stringify(e.found[0])})`);
    case "not_object":
      return new BenchmarkFileError(`record ${e.index} is not an object`);
    case "unclosed":
      return new BenchmarkFileError(`the array is not closed (the file ends inside record ${e.index})`);
    case "trailing":
      return new BenchmarkFileError("text after the closing ] of the array");
    case "element":
      return new RecordError(`record ${e.index}`, "(record)", `not valid JSON (${e.parseMessage})`);
    case "unexpected":
      // A comma missing, doubled or before the "]": the text scanner this replaced let these by.
      return new BenchmarkFileError(`unexpected ${JSON.stringify(e.found)} ${e.index ? `after record ${e.index - 1}` : "after the opening ["}`);
    case "too_large":
    case "too_deep":
    case "too_many_values":
      // Not asked for by this reader (no maxElementBytes, no maxDepth): said as it is.
      return new BenchmarkFileError(e.message);
  }
}
