// A parse written as a generator that yields every STEP records: run through at once by a
// caller that has the whole input anyway (the JSON routes, the unit tests), or with a turn of
// the event loop at each yield by an upload (start-upload.ts), so that a file of 100 000
// records never holds other requests for seconds.

/** Records between two yields: tens of milliseconds of work at most. */
export const STEP = 200;

export type Steps<T> = Generator<void, T, void>;

export function runSteps<T>(g: Steps<T>): T {
  for (;;) {
    const r = g.next();
    if (r.done) return r.value;
  }
}

export async function runStepsYielding<T>(g: Steps<T>): Promise<T> {
  for (;;) {
    const r = g.next();
    if (r.done) return r.value;
    await new Promise((res) => setImmediate(res));
  }
}
