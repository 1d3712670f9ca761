const nf = new Intl.NumberFormat("en-US");
const compact = new Intl.NumberFormat("en-US", { notation: "compact", maximumFractionDigits: 1 });

export const formatInt = (n: number) => nf.format(n);
export const formatCompact = (n: number) => (Math.abs(n) < 10_000 ? nf.format(n) : compact.format(n));

const rtf = new Intl.RelativeTimeFormat("en", { numeric: "auto" });
const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ["year", 365 * 24 * 3600],
  ["month", 30 * 24 * 3600],
  ["week", 7 * 24 * 3600],
  ["day", 24 * 3600],
  ["hour", 3600],
  ["minute", 60],
];

/** "3 hours ago"; "just now" under a minute. `now` is injectable for stable tests. */
export function relativeTime(iso: string, now = Date.now()): string {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return "—";
  const secs = (t - now) / 1000;
  for (const [unit, size] of UNITS) {
    if (Math.abs(secs) >= size) return rtf.format(Math.round(secs / size), unit);
  }
  return "just now";
}

// One shared formatter: toLocaleString(options) builds a new one per call, which shows up in long transcripts.
const dtf = new Intl.DateTimeFormat("en-US", { dateStyle: "medium", timeStyle: "short" });

export function absoluteTime(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : dtf.format(d);
}

/** One line, at most `max` characters, for tree nodes and titles. */
export function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${formatInt(n)} ${n === 1 ? one : many}`;
}

// An ISO-8601 instant inside a sentence (the API's reasons name times that way).
const ISO_INSTANT = /\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2})/g;

/** A sentence from the API with its ISO times as people read them ("Oct 2, 2026, 9:14 AM"). */
export function plainTimes(text: string): string {
  return text.replace(ISO_INSTANT, (t) => absoluteTime(t));
}
