import { countInWarmPool, INLINE_BELOW_CHARS } from "../tokens/count-tokens-parallel";
import type { EncodingName } from "../tokens/registry";
import { llamaBufferTokenLimit, LLAMAINDEX_ENCODING, type LlamaBufferOptions } from "./frameworks/llamaindex-memory";
import { tokensKnown } from "./message-tokens";
import type { RoleMessage } from "./schemas";
import type { TextCounter } from "./text-counts";

// A framework window under a model of another encoding counts each kept text twice: in
// LlamaIndex's cl100k to decide, and in the model's encoding for total_tokens. On a thread the
// server never saw (all texts new) both are ~half of the request's counting, done one after the
// other on the request thread. The model's side does not depend on the decision's, so it can
// start first in the worker pool and be counted while the strategy runs: wall time, not CPU
// (the same countBounded runs there, so the counts are the same numbers).

/** Characters per token assumed to pick the texts to send: prose is ~4; a longer guess sends fewer. */
const CHARS_PER_TOKEN_GUESS = 4;

/** Batches sent to the pool, and of those, answered in time (read by bench/diag/window-frameworks-profile.ts). */
export const countsAheadTally = { sent: 0, inTime: 0 };

/**
 * Starts counting, in the model's encoding on the pool, the texts a `llamaindex_buffer` window
 * will likely keep (newest first while their guessed tokens fit its limit) that `counter` does not
 * know yet; null when there is nothing worth sending (under INLINE_BELOW_CHARS, the model's
 * encoding is LlamaIndex's, a counter that keeps nothing, or no warm pool worker).
 * `settle()` keeps the pool's counts in the counter, waiting for them at most `waitMs` after it is
 * called: a late or failed pool leaves the texts to be counted inline as before (a text the pool
 * did not count exactly, too), so the answer never depends on the pool.
 */
export function countLlamaBufferAhead(
  messages: RoleMessage[],
  temporary: RoleMessage[],
  opts: LlamaBufferOptions,
  ctx: { encoding: EncodingName; contextWindow: number },
  counter: TextCounter,
): { settle(waitMs: number): Promise<void> } | null {
  if (ctx.encoding === LLAMAINDEX_ENCODING || !counter.known || !counter.record) return null;
  const known = counter.known.bind(counter);
  const budget = (llamaBufferTokenLimit(opts, ctx) - opts.initial_token_count) * CHARS_PER_TOKEN_GUESS;
  const texts: string[] = [];
  const seen = new Set<string>();
  let chars = 0;
  let guessed = 0;
  // The window is a suffix of [...temporary, ...messages]: newest first. Only what applyStrategy
  // counts through the counter afterwards (primeFromCounter: a plain text without tool calls).
  const all = [...temporary, ...messages];
  for (let i = all.length - 1; i >= 0 && guessed <= budget; i--) {
    const m = all[i];
    if (typeof m.content !== "string") continue;
    guessed += m.content.length;
    if (m.tool_calls?.length || tokensKnown(m, ctx.encoding) || seen.has(m.content) || known(m.content, ctx.encoding)) continue;
    seen.add(m.content);
    texts.push(m.content);
    chars += m.content.length;
  }
  if (chars < INLINE_BELOW_CHARS) return null;
  const pending = countInWarmPool(texts, ctx.encoding);
  if (!pending) return null;
  countsAheadTally.sent++;
  const record = counter.record.bind(counter);
  return {
    async settle(waitMs) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<null>((resolve) => {
        timer = setTimeout(() => resolve(null), waitMs);
      });
      const r = await Promise.race([pending, late]);
      clearTimeout(timer);
      if (!r) return;
      countsAheadTally.inTime++;
      for (let i = 0; i < texts.length; i++) {
        if (!r.approximate[i]) record(texts[i], ctx.encoding, { tokens: r.tokens[i], approximate: false });
      }
    },
  };
}
