import type { ImportProblem } from "./types";

// Small readers for untyped source records: each failure names the record and the field.

export type Obj = Record<string, unknown>;

export class RecordProblem extends Error {
  constructor(
    readonly field: string | undefined,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Every defect of one record, not only the first: each part is read through check(), which
 * notes a RecordProblem and lets the caller go on to the next part. A record with any defect
 * is left out whole, and all of them are named.
 */
export class Defects {
  readonly list: ImportProblem[] = [];
  constructor(readonly record: string) {}
  check<T>(f: () => T): T | undefined {
    try {
      return f();
    } catch (e) {
      this.list.push(problemOf(this.record, e));
      return undefined;
    }
  }
  add(field: string | undefined, message: string) {
    this.list.push({ record: this.record, ...(field ? { field } : {}), message });
  }
  get any(): boolean {
    return this.list.length > 0;
  }
  /** Throws them all (RecordDefects) when there is any. */
  throwAny() {
    if (this.list.length) throw new RecordDefects(this.list);
  }
}

/** Adds counts of unrepresented content by reason (ParsedImport.unrepresented). */
export function addCounts(into: Record<string, number>, from: Record<string, number>) {
  for (const [k, n] of Object.entries(from)) if (n) into[k] = (into[k] ?? 0) + n;
}

/** How many records a problem list leaves out: a record names each of its defects, and counts once. */
export const failedRecords = (problems: ImportProblem[]) => new Set(problems.map((p) => p.record)).size;

/** A record's defects, all of them (Defects.list): thrown to leave the record out whole. */
export class RecordDefects extends Error {
  constructor(readonly problems: ImportProblem[]) {
    super(problems[0]?.message ?? "defective record");
  }
}

/** A record's problems from what its parser threw: every defect of a RecordDefects, else the one. */
export function problemsOf(record: string, e: unknown): ImportProblem[] {
  return e instanceof RecordDefects ? e.problems : [problemOf(record, e)];
}

export const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

export function problemOf(record: string, e: unknown): ImportProblem {
  if (e instanceof RecordProblem) return { record, field: e.field, message: e.message };
  return { record, message: e instanceof Error ? e.message : String(e) };
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (v: unknown): v is string => typeof v === "string" && UUID_RE.test(v);

export function reqUuid(o: Obj, key: string, path = key): string {
  const v = o[key];
  if (!isUuid(v)) throw new RecordProblem(path, v === undefined ? "missing (a UUID is required)" : "not a UUID");
  return v.toLowerCase();
}

export function optString(o: Obj, key: string, path = key): string | undefined {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "string") throw new RecordProblem(path, `must be a string, got ${typeName(v)}`);
  return v;
}

export function optObj(o: Obj, key: string, path = key): Obj | undefined {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  if (!isObj(v)) throw new RecordProblem(path, `must be an object, got ${typeName(v)}`);
  return v;
}

export function optArray(o: Obj, key: string, path = key): unknown[] {
  const v = o[key];
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new RecordProblem(path, `must be an array, got ${typeName(v)}`);
  return v;
}

/** Unix seconds (Dify's created_at) or an ISO string, as ISO. */
export function optTime(o: Obj, key: string, path = key): string | undefined {
  const v = o[key];
  if (v === undefined || v === null || v === "") return undefined;
  if (typeof v === "number" && Number.isFinite(v)) {
    // Dify sends seconds; a value past year 33658 in seconds is milliseconds.
    const ms = v > 1e12 ? v : v * 1000;
    return checkDate(new Date(ms), path);
  }
  if (typeof v === "string") {
    if (/^\d+(\.\d+)?$/.test(v)) return optTime({ [key]: Number(v) }, key, path);
    // Mem0 local times may lack a zone: read them as UTC.
    const withZone = /[zZ]|[+-]\d\d:?\d\d$/.test(v) ? v : `${v}Z`;
    return checkDate(new Date(withZone), path);
  }
  throw new RecordProblem(path, `must be unix seconds or an ISO date-time, got ${typeName(v)}`);
}

function checkDate(d: Date, path: string): string {
  if (Number.isNaN(d.getTime()) || d.getUTCFullYear() < 1970 || d.getUTCFullYear() > 9999) {
    throw new RecordProblem(path, "not a valid time");
  }
  return d.toISOString();
}

export function typeName(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  return typeof v;
}
