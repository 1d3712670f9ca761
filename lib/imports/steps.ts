// A parse written as a generator that yields every STEP records, run through at once: by the
// JSON routes and the unit tests, and by the upload parse worker (parse-upload-worker.ts), off
// the request thread. (Uploads used to take a turn of the event loop at each yield; the work
// between yields, a file's decoding and scanning, still held the server's thread.)

/** Records between two yields: tens of milliseconds of work at most. */
export const STEP = 200;

export type Steps<T> = Generator<void, T, void>;

export function runSteps<T>(g: Steps<T>): T {
  for (;;) {
    const r = g.next();
    if (r.done) return r.value;
  }
}
