/** Polls `fn` until `ok` holds of its answer; fails naming `what` and the last answer. */
export async function until<T>(what: string, fn: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 120_000, everyMs = 200): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const last = await fn();
    if (ok(last)) return last;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
