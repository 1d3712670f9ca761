// Memory files written as Markdown (MEMORY.md, a memory tool's notes, Claude's account
// memory): one memory per list item, else per paragraph. A heading is not a memory: it
// names the section of the items under it. Front matter (--- ... ---) is skipped.

export type MarkdownItem = { text: string; section: string | null; line: number };

const LIST = /^\s{0,3}(?:[-*+]|\d{1,3}[.)])\s+(?:\[[ xX]\]\s+)?/;

/** `max`: stop after this many items plus one (the caller refuses a file over its records limit without reading all of it). */
export function markdownItems(text: string, max = Infinity): MarkdownItem[] {
  return [...markdownItemsLazily(text, max)];
}

/** The items one at a time, for a caller that yields to the event loop between them (a file of 100 000 items). */
export function* markdownItemsLazily(text: string, max = Infinity): Generator<MarkdownItem, void, void> {
  const lines = new Lines(text.replace(/^\uFEFF/, ""));
  const out: MarkdownItem[] = [];
  let given = 0;
  let section: string | null = null;
  let cur: { lines: string[]; line: number } | null = null;
  let fence = false;
  const close = () => {
    if (cur) {
      const t = cur.lines.join("\n").trim();
      if (t) out.push({ text: t, section, line: cur.line });
    }
    cur = null;
  };
  let i = 0;
  if (lines.at(0)?.trim() === "---") {
    for (let k = 1; lines.at(k) !== undefined; k++) {
      if (lines.at(k)!.trim() === "---") {
        i = k + 1;
        break;
      }
    }
  }
  for (; lines.at(i) !== undefined && given <= max; i++) {
    if (out.length) {
      given += out.length;
      yield* out.splice(0);
    }
    const l = lines.at(i)!;
    if (/^\s*(```|~~~)/.test(l)) {
      fence = !fence;
      (cur ??= { lines: [], line: i + 1 }).lines.push(l);
      continue;
    }
    if (fence) {
      cur!.lines.push(l);
      continue;
    }
    const h = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(l);
    if (h) {
      close();
      section = h[1] || null;
    } else if (!l.trim()) {
      close();
    } else if (LIST.test(l)) {
      close();
      cur = { lines: [l.replace(LIST, "")], line: i + 1 };
    } else if (cur) {
      cur.lines.push(l.replace(/^\s{2,}/, ""));
    } else {
      cur = { lines: [l], line: i + 1 };
    }
  }
  close();
  yield* out;
}

/**
 * A text's lines ("\n" or "\r\n" ends one), cut as they are asked for, in order: a file of a
 * million lines is not split whole when only its first items are read (the records limit).
 */
export class Lines {
  private cut: string[] = [];
  private pos = 0;
  constructor(private readonly text: string) {}

  /** Line k (from 0), or undefined past the last. */
  at(k: number): string | undefined {
    while (this.cut.length <= k && this.pos <= this.text.length) {
      const nl = this.text.indexOf("\n", this.pos);
      const end = nl < 0 ? this.text.length : nl;
      this.cut.push(this.text.slice(this.pos, end > this.pos && this.text.charCodeAt(end - 1) === 13 ? end - 1 : end));
      this.pos = end + 1;
    }
    return this.cut[k];
  }
}
