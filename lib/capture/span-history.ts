import type { ChatMessage, PromptNode } from "./captured-shapes";

// What the last call of a conversation left, kept in the process so the next call's reading
// starts where it ended (issue 35's throughput, docs/benchmarks.md sections 59 and 64). An
// agent resends its whole history with every call: call n+1's gen_ai.input.messages is call
// n's text without its closing bracket, a comma, and the new messages. Every step of the
// ingest walked the whole history (JSON.parse, the storable checks, the continuation digests,
// the prompt chain's node ids): O(n) a span, O(n^2) a conversation. With an earlier input
// whose text (up to its last message) is where the span's text begins, only the rest is
// parsed, checked and digested; what the earlier input's messages gave is reused.
//
// Everything kept is a function of that text alone (the digests of the continuation chain
// also of the app and system instructions, kept beside them as their seed), so a reused value
// is the value the full path computes: a miss (another process, a restart, an evicted entry, a
// call that edits its history) reads the span whole, and results never depend on the cache
// (tests/unit/otel-capture-history.test.ts compares both paths row for row).

/** JSON's whitespace. */
const isJsonSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/** One read input: its text up to its last message, its messages, and what later steps derived from them. */
export type HistoryEntry = {
  scope: string;
  /** The input attribute without its closing bracket and the whitespace before it: ends right after its last message. */
  head: string;
  /** As readChat read them (shared by later calls' inputs: never modified). */
  messages: readonly ChatMessage[];
  /** Set by the storable checks, which passed: the UTF-8 bytes of each message's JSON, summed. */
  bytes?: number;
  /** Set by chainKeys: the continuation digest after each message, from `seed` (app and system instructions). */
  chain?: { seed: string; hs: readonly string[] };
  /** Set by promptChain: the nodes of the exchanges closed by an assistant message within the messages, and how many messages they cover. */
  nodes?: { nodes: readonly PromptNode[]; covered: number };
};

/** A read input and the earlier input it began with (null: read whole). */
export type HistoryLink = { own: HistoryEntry; base: HistoryEntry | null };

/** Where an input text continues an entry: the index just after the comma (or the bracket, when it is the same list). */
type Match = { entry: HistoryEntry; rest: number; same: boolean };

/** Characters of an input's beginning a bucket is found by (every call of an agent begins the same). */
const KEY_CHARS = 64;
/** Offsets (characters) of the second part of a bucket's key: a head reaching past one is keyed there too (bucketKey). */
const LEVELS = [0, 1024, 4096, 16384, 65536];
/** Characters at the end of a kept head compared before the whole head (find). */
const TAIL_CHARS = 32;

export class SpanHistories {
  private readonly buckets = new Map<string, Set<HistoryEntry>>();
  /** Every entry, least recently used first. */
  private readonly lru = new Set<HistoryEntry>();
  private chars = 0;
  /** Inputs read from where a kept one ended, and inputs read whole (with the histories), since the process started. */
  hits = 0;
  misses = 0;

  constructor(
    readonly maxEntries = 2048,
    /** Characters of input text held (the parsed messages, digests and nodes kept with them are a few times that in bytes). */
    readonly maxChars = 8 * 1024 * 1024,
  ) {}

  get size() {
    return this.lru.size;
  }

  /**
   * The bucket of a kept head: its first KEY_CHARS characters, and the KEY_CHARS from the
   * farthest of LEVELS it reaches past. Agents that share a system prompt share its first
   * kilobytes; without the second part all their conversations were one bucket, walked for
   * every span (2 048 heads at most).
   */
  private static bucketKey(scope: string, head: string) {
    return SpanHistories.keyAt(scope, head, SpanHistories.levelOf(head.length));
  }

  private static levelOf(headLength: number): number {
    for (let i = LEVELS.length - 1; i > 0; i--) if (headLength >= LEVELS[i] + KEY_CHARS) return LEVELS[i];
    return 0;
  }

  private static keyAt(scope: string, text: string, level: number) {
    return level ? `${scope}\u0000${text.slice(0, KEY_CHARS)}\u0000${level}\u0000${text.slice(level, level + KEY_CHARS)}` : `${scope}\u0000${text.slice(0, KEY_CHARS)}`;
  }

  /**
   * The longest kept input of `scope` whose messages `text` begins with: `text` starts with its
   * head and continues with a comma (more messages) or the closing bracket (the same list).
   */
  find(scope: string, text: string): Match | null {
    if (text.length <= KEY_CHARS) return null;
    // A head of a higher level is longer than any of a lower one: the first level with a match has the longest.
    let best: Match | null = null;
    for (let i = LEVELS.length - 1; i >= 0 && !best; i--) {
      if (i > 0 && text.length < LEVELS[i] + KEY_CHARS) continue;
      const bucket = this.buckets.get(SpanHistories.keyAt(scope, text, LEVELS[i]));
      if (bucket) best = SpanHistories.longestIn(bucket, text);
    }
    if (best) {
      this.lru.delete(best.entry);
      this.lru.add(best.entry);
    }
    return best;
  }

  /** The longest head in `bucket` that `text` begins with, followed by a comma or the closing bracket. */
  private static longestIn(bucket: Set<HistoryEntry>, text: string): Match | null {
    let best: Match | null = null;
    for (const e of bucket) {
      const n = e.head.length;
      if (n >= text.length || (best && n <= best.entry.head.length)) continue;
      let i = n;
      while (i < text.length && isJsonSpace(text.charCodeAt(i))) i++;
      const c = text.charCodeAt(i);
      if (c !== 0x2c && c !== 0x5d) continue;
      // The end of the head first (heads of one bucket share their beginning), then the whole:
      // compared as strings, not with startsWith, which walks them a character at a time (9 KB:
      // 4-11 us against 0.2-0.4 us on Node 20).
      if (text.slice(n - TAIL_CHARS, n) !== e.head.slice(n - TAIL_CHARS) || text.slice(0, n) !== e.head) continue;
      best = { entry: e, rest: i + 1, same: c === 0x5d };
    }
    return best;
  }

  /**
   * Keeps an entry (its input passed the checks). The entry it continued goes: the next call
   * of the conversation continues this one, and a call that branches from the earlier one is
   * read whole.
   */
  remember(link: HistoryLink) {
    const e = link.own;
    if (!e.messages.length || this.lru.has(e) || e.head.length <= KEY_CHARS || e.head.length > this.maxChars / 4) return;
    if (link.base && link.base !== e) this.forget(link.base);
    const key = SpanHistories.bucketKey(e.scope, e.head);
    let bucket = this.buckets.get(key);
    if (!bucket) this.buckets.set(key, (bucket = new Set()));
    bucket.add(e);
    this.lru.add(e);
    this.chars += e.head.length;
    while (this.lru.size > this.maxEntries || this.chars > this.maxChars) this.forget(this.lru.values().next().value!);
  }

  private forget(e: HistoryEntry) {
    if (!this.lru.delete(e)) return;
    this.chars -= e.head.length;
    const key = SpanHistories.bucketKey(e.scope, e.head);
    const bucket = this.buckets.get(key);
    bucket?.delete(e);
    if (bucket && !bucket.size) this.buckets.delete(key);
  }

  clear() {
    this.buckets.clear();
    this.lru.clear();
    this.chars = 0;
  }
}

/** The input text without its closing bracket and the whitespace before it (the text parsed as an array of at least one message). */
export function headOf(text: string): string {
  let end = text.length - 1;
  while (end >= 0 && isJsonSpace(text.charCodeAt(end))) end--;
  // Its last character is the array's closing bracket (the text parsed as an array).
  end--;
  while (end >= 0 && isJsonSpace(text.charCodeAt(end))) end--;
  return text.slice(0, end + 1);
}

const links = new WeakMap<readonly ChatMessage[], HistoryLink>();

/** Links a read input's messages (the chat's inputMessages array) to its entry and the entry it continued, for the later steps. */
export const linkHistory = (messages: readonly ChatMessage[], link: HistoryLink) => void links.set(messages, link);

/** The entries of a chat's input, when it was read with the histories. */
export const historyLinkOf = (messages: readonly ChatMessage[]): HistoryLink | undefined => links.get(messages);

/**
 * Characters of input text the process keeps: MEMSCOPE_SPAN_HISTORY_CHARS (default 8 M, about
 * 40-70 MB of heap when full with the messages, digests and nodes kept beside them; 0 keeps
 * nothing: every input read whole, docs/benchmarks.md section 64's comparison).
 */
function historyChars(): number {
  const v = process.env.MEMSCOPE_SPAN_HISTORY_CHARS;
  const n = v === undefined || v === "" ? Number.NaN : Number(v);
  return Number.isFinite(n) && n >= 0 ? n : 8 * 1024 * 1024;
}

/** The ingest's histories: one per process. */
export const spanHistories = new SpanHistories(2048, historyChars());

/** After an erasure: the process keeps no input text (lib/privacy/purge-caches.ts). */
export const forgetSpanHistories = () => spanHistories.clear();

/** A reader of one request's inputs: the histories and the project they belong to (a project's inputs continue only its own). */
export type HistoryScope = { histories: SpanHistories; scope: string };
