import { countTextTokens, textPieces } from "../../tokens/count-tokens";
import type { EncodingName } from "../../tokens/registry";

/**
 * LlamaIndex counts a list of messages as ONE string: their texts joined with a space, then
 * tokenized. ChatMemoryBuffer counts ever shorter suffixes of the list and Memory.getLLM ever
 * longer prefixes of the newest-first list; counting each joined string afresh is quadratic
 * (seconds for a 500-turn thread). This counts every prefix or suffix exactly, as one count
 * of that joined string would, from one scan of the whole joined string:
 * - a suffix is the joined string's tail; its own scan follows the whole scan as soon as both
 *   start a piece at the same place (the split pattern has no lookbehind), usually after one piece;
 * - a prefix ending in a text with a non-space character agrees with the whole scan up to the
 *   piece holding the joining space before that text (no piece reads past a space and a
 *   non-space character), so only that piece and the last text are counted again.
 */
// A character outside tiktoken's white space (Rust's \s, which differs from JavaScript's).
const NON_SPACE = /[^\t\n\v\f\r \u0085\u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000]/u;

/**
 * Whether a text, followed by " " and another text, leaves the joined string's pieces as they
 * were: its last character is not white space, so its last piece cannot take the joining space
 * (no pattern puts a space after a non-space character) and the next piece starts at that
 * space. The joined string's pieces are then this text's own, then those of " " + the next.
 */
export function endsJoinable(text: string): boolean {
  return text.length > 0 && NON_SPACE.test(text[text.length - 1]);
}

export class JoinedTexts {
  private readonly joined: string;
  private readonly offsets: number[] = [];
  private readonly starts: number[];
  private readonly before: number[];
  private readonly isStart: Uint8Array;

  constructor(
    private readonly texts: string[],
    private readonly encoding: EncodingName,
  ) {
    let at = 0;
    for (const t of texts) {
      this.offsets.push(at);
      at += t.length + 1;
    }
    this.joined = texts.join(" ");
    const scan = textPieces(this.joined, encoding);
    this.starts = scan.starts;
    this.before = scan.before;
    this.isStart = new Uint8Array(this.joined.length + 1);
    for (const s of this.starts) this.isStart[s] = 1;
  }

  /** Tokens of texts[from..].join(" "). */
  suffix(from: number): number {
    if (from >= this.texts.length) return 0;
    if (from === 0) return this.before[this.before.length - 1];
    const p = this.offsets[from];
    const head = textPieces(this.joined, this.encoding, p, this.joined.length, this.isStart);
    const headTokens = head.before[head.before.length - 1];
    if (head.stoppedAt < 0) return headTokens;
    return headTokens + this.total() - this.before[this.pieceAt(head.stoppedAt)];
  }

  /** Tokens of texts[0..count).join(" "). */
  prefix(count: number): number {
    if (count <= 0) return 0;
    if (count >= this.texts.length) return this.total();
    const last = count - 1;
    const end = this.offsets[last] + this.texts[last].length;
    if (last === 0) return countTextTokens(this.texts[0], this.encoding);
    if (!NON_SPACE.test(this.texts[last])) return countTextTokens(this.joined.slice(0, end), this.encoding);
    // The piece holding the joining space before the last text.
    const k = this.pieceAt(this.offsets[last] - 1);
    return this.before[k] + countTextTokens(this.joined.slice(this.starts[k], end), this.encoding);
  }

  private total(): number {
    return this.before[this.before.length - 1];
  }

  /** Index of the last piece starting at or before `pos`. */
  private pieceAt(pos: number): number {
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid] <= pos) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }
}
