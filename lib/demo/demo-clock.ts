// The demo happened "about two months ago", counted from the day the demo is seeded: its
// conversations and its memories both. With fixed calendar dates for one and "n days ago" for
// the other, the two drift apart: a memory "learned 60 days ago" lands after the October turns
// it was meant to precede, and a replay of the same demo turn changes from one day to the next.
// Day-granular, so that a seed at any hour of a day writes the same times.

const DAY_MS = 86_400_000;

function seedDay(now: number): number {
  return now - (now % DAY_MS);
}

/** 08:00 UTC, 59 days before the seed's day: the first turn of the first demo conversation. */
export function demoEpoch(now = Date.now()): number {
  return seedDay(now) - 59 * DAY_MS + 8 * 3_600_000;
}

/** When a demo memory "learned `daysAgo` days ago" was made: noon UTC of that day. */
export function demoMemoryCreatedAt(now: number, daysAgo: number): number {
  return seedDay(now) + 12 * 3_600_000 - daysAgo * DAY_MS;
}
