// What parsing a JSON document would cost, measured on its bytes before it is parsed: shared by
// the JSON worker (json-worker.mjs) and the upload parse worker (lib/imports/parse-upload-worker.ts),
// which refuse a document past half their heap cap without parsing it. A plain .mjs, as
// json-worker.mjs is read at run time; its types are json-estimate.d.mts.

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
export function estimate(data) {
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
