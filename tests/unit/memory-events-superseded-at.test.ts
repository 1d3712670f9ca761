import { randomUUID } from "node:crypto";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { openDatabase, type Database } from "@/lib/db/open-database";
import { applyMigrations, readMigrations } from "@/lib/db/migrations";
import { emptyClusterDir } from "../helpers/fresh-data-dir";
import { createFreshDatabase, realPostgresUrl } from "../helpers/real-postgres";
import { suiteTempDirs } from "../helpers/temp-dir";

// Migration 20261126140000_memory_events_superseded_at: each history event's superseded_at
// is the time of its memory's next change (NULL for the newest; its own time for an event
// that changed nothing), backfilled for existing rows and kept by triggers whatever the
// order of inserts, when an event is moved (its time updated) and when events are deleted.
// On PGlite, and on PostgreSQL when MEMSCOPE_TEST_POSTGRES_URL names one.

const MIGRATION = "20261126140000_memory_events_superseded_at";
const fresh = suiteTempDirs(afterAll);
const drops: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const d of drops) await d();
});

type Ev = { id: string; memory: string; type: string; before: number | null; after: number | null; at: number };
const T0 = Date.parse("2026-01-01T00:00:00.000Z");
const snap = (v: number | null) => (v === null ? null : JSON.stringify({ version: v, content: `v${v}` }));

async function insert(db: Database, evs: Ev[]) {
  if (!evs.length) return;
  await db.sql.query(
    `INSERT INTO memory_events (id, memory_id, user_id, event_type, actor, before, after, created_at, project_id)
     SELECT u.id, u.m, 'u1', u.t, 'api', u.b::jsonb, u.a::jsonb, u.at, 'default'
       FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::text[], $6::timestamptz[]) AS u(id, m, t, b, a, at)`,
    [evs.map((e) => e.id), evs.map((e) => e.memory), evs.map((e) => e.type), evs.map((e) => snap(e.before)), evs.map((e) => snap(e.after)), evs.map((e) => new Date(e.at).toISOString())],
  );
}

/** What superseded_at must be, computed from the events alone (state-sql.ts's order). */
function expected(evs: Ev[]): Map<string, string | null> {
  const out = new Map<string, string | null>();
  const change = (e: Ev) => e.type !== "relate" && (e.before === null || e.after === null || e.before !== e.after);
  const key = (e: Ev) => e.after ?? (e.before !== null ? e.before + 1 : 0);
  for (const m of new Set(evs.map((e) => e.memory))) {
    const mine = evs.filter((e) => e.memory === m);
    const chain = mine.filter(change).sort((x, y) => x.at - y.at || key(x) - key(y) || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
    chain.forEach((e, i) => out.set(e.id, i + 1 < chain.length ? new Date(chain[i + 1].at).toISOString() : null));
    for (const e of mine.filter((e) => !change(e))) out.set(e.id, new Date(e.at).toISOString());
  }
  return out;
}

async function stored(db: Database): Promise<Map<string, string | null>> {
  const rows = await db.sql.query<{ id: string; s: Date | string | null }>(`SELECT id, superseded_at AS s FROM memory_events`);
  return new Map(rows.map((r) => [r.id, r.s === null ? null : new Date(r.s).toISOString()]));
}

/** A memory's history as writers leave it: made, edited n times (some in one millisecond), a no-op, relations, maybe deleted. */
function history(memory: string, start: number, edits: number, opts: { sameMs?: boolean; deleted?: boolean } = {}): Ev[] {
  const evs: Ev[] = [{ id: randomUUID(), memory, type: "create", before: null, after: 1, at: start }];
  let at = start;
  for (let v = 1; v <= edits; v++) {
    at += opts.sameMs && v % 2 ? 0 : 10;
    evs.push({ id: randomUUID(), memory, type: "update", before: v, after: v + 1, at });
  }
  evs.push({ id: randomUUID(), memory, type: "relate", before: null, after: null, at: at + 1 });
  evs.push({ id: randomUUID(), memory, type: "unmerge", before: edits + 1, after: edits + 1, at: at + 2 });
  if (opts.deleted) evs.push({ id: randomUUID(), memory, type: "delete", before: edits + 1, after: null, at: at + 5 });
  return evs;
}

async function open(kind: "pglite" | "postgres"): Promise<Database> {
  // A copy of the bare cluster (initdb done once per run): the test applies the migrations itself.
  if (kind === "pglite") return openDatabase({ kind: "pglite", dataDir: await emptyClusterDir(fresh("superseded")) }, { migrate: false });
  const d = await createFreshDatabase(realPostgresUrl()!);
  drops.push(d.drop);
  return openDatabase({ kind: "postgres", url: d.url }, { migrate: false });
}

const KINDS = (["pglite", ...(realPostgresUrl() ? ["postgres"] : [])] as const).map((k) => k as "pglite" | "postgres");

describe.each(KINDS)(`migration ${MIGRATION} on %s`, (kind) => {
  it("backfills existing history, then the triggers keep it: inserts in any order, a moved event, deletes", async () => {
    const all = readMigrations();
    expect(all.map((m) => m.name)).toContain(MIGRATION);
    const db = await open(kind);
    try {
      await applyMigrations(db.sql, all.filter((m) => m.name < MIGRATION));
      const [a, b, c, d] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
      let evs = [...history(a, T0, 4, { sameMs: true }), ...history(b, T0 + 3, 2, { deleted: true })];
      await insert(db, evs);
      expect((await applyMigrations(db.sql, all)).applied).toContain(MIGRATION);
      expect(await stored(db)).toEqual(expected(evs));

      // New events: in order, one at a time, and a whole history in one statement in reverse order.
      const more = history(c, T0 + 100, 3, { sameMs: true });
      for (const e of more) await insert(db, [e]);
      const late = history(d, T0 + 50, 5);
      await insert(db, [...late].reverse());
      // An event written into the past of a memory (imported history), between two others.
      const past: Ev = { id: randomUUID(), memory: a, type: "update", before: 2, after: 2.5 as number, at: T0 + 15 };
      await insert(db, [{ ...past, after: 3 }]);
      evs = [...evs, ...more, ...late, { ...past, after: 3 }];
      expect(await stored(db)).toEqual(expected(evs));

      // The demo seed moves a memory's events in time; an erasure deletes events.
      await db.sql.query(`UPDATE memory_events SET created_at = $2 WHERE memory_id = $1`, [c, new Date(T0 - 1000).toISOString()]);
      evs = evs.map((e) => (e.memory === c ? { ...e, at: T0 - 1000 } : e));
      const middle = late[2];
      await db.sql.query(`DELETE FROM memory_events WHERE id = $1`, [middle.id]);
      await db.sql.query(`DELETE FROM memory_events WHERE memory_id = $1`, [b]);
      evs = evs.filter((e) => e.id !== middle.id && e.memory !== b);
      expect(await stored(db)).toEqual(expected(evs));
    } finally {
      await db.close();
    }
  }, 120_000);

  it("property: any events inserted in any batches and order chain as if sorted", async () => {
    const db = await open(kind);
    try {
      await applyMigrations(db.sql, readMigrations());
      const ev = fc.record({ m: fc.nat(3), type: fc.constantFrom("create", "update", "update", "archive", "relate", "unmerge", "delete"), v: fc.nat(6), dt: fc.nat(4) });
      await fc.assert(
        fc.asyncProperty(fc.array(ev, { minLength: 1, maxLength: 24 }), fc.array(fc.nat(24), { maxLength: 4 }), async (spec, cuts) => {
          await db.sql.query(`DELETE FROM memory_events`);
          const ms = Array.from({ length: 4 }, () => randomUUID());
          const evs: Ev[] = spec.map((s) => ({
            id: randomUUID(),
            memory: ms[s.m],
            type: s.type,
            before: s.type === "create" || s.type === "relate" ? null : s.v,
            after: s.type === "delete" || s.type === "relate" ? null : s.type === "unmerge" ? s.v : s.v + 1,
            at: T0 + s.dt,
          }));
          // Batches cut at random places, each one statement.
          const at = [...new Set([0, ...cuts.map((c) => c % evs.length), evs.length])].sort((x, y) => x - y);
          for (let i = 0; i + 1 < at.length; i++) await insert(db, evs.slice(at[i], at[i + 1]));
          expect(await stored(db)).toEqual(expected(evs));
        }),
        { numRuns: 25 },
      );
    } finally {
      await db.close();
    }
  }, 120_000);
});
