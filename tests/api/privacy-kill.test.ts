import { queryPostgres } from "../helpers/real-postgres";
import { randomUUID } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { apiClient } from "../helpers/api-client";
import type { AppServer } from "../helpers/app-server";
import { openTestDatabase, type TestDatabase } from "../helpers/test-database";
import { ERASURE_WRITES, expectOthersUntouched, makePerson, rowsWith, snapshot } from "./privacy-fixture";

// Issue 24: kill -9 in the middle of the erasure of a large user, restart, run it again:
// the erasure completes, each batch went whole (the counts recorded with it match the rows
// gone), writes for the user are refused meanwhile, and nothing of the other users changed.
// On the "postgres" kind: the test reads the database while the server runs.

/** A user export document with `memories` memories (each with a history event) and conversations of turns. */
function largeUser(userId: string, memories: number, conversations: number, turns: number) {
  const t0 = Date.parse("2026-01-01T00:00:00Z");
  const at = (i: number) => new Date(t0 + i * 1000).toISOString();
  const convs = Array.from({ length: conversations }, (_, i) => ({ id: randomUUID(), app_id: "big", end_user_id: userId, name: `c${i}`, turn_count: turns, created_at: at(i), updated_at: at(i) }));
  const messages = convs.flatMap((c, ci) =>
    Array.from({ length: turns }, (_, i) => ({ id: randomUUID(), conversation_id: c.id, query: `question ${ci}.${i} of ${userId}`, answer: `answer ${ci}.${i}`, created_at: at(ci * turns + i) })),
  );
  const mems = Array.from({ length: memories }, (_, i) => ({
    id: randomUUID(),
    user_id: userId,
    memory_type: "fact",
    content: `fact number ${i} about ${userId}`,
    content_key: `fact number ${i} about ${userId}`.toLowerCase(),
    created_at: at(i),
    updated_at: at(i),
  }));
  const events = mems.map((m, i) => ({ id: randomUUID(), memory_id: m.id, event_type: "create", actor: "api", after: { content: m.content }, user_id: userId, created_at: at(i) }));
  return {
    format: "memscope.user-export",
    version: 1,
    user_id: userId,
    exported_at: new Date().toISOString(),
    tables: { conversations: convs, messages, memories: mems, memory_events: events },
  };
}

describe("kill -9 mid-erasure, restart, erase again: complete, others untouched (postgres)", () => {
  let db: TestDatabase;
  let server: AppServer | null = null;
  afterAll(async () => {
    await server?.stop();
    await db?.stop();
  });

  it("finishes after a kill and touches no other user", { timeout: 600_000 }, async () => {
    db = await openTestDatabase("postgres");
    const env = { MEMSCOPE_ERASE_BATCH: "25" };
    server = await db.startApp({ env });
    let api = apiClient(server.url);
    const big = `big-${randomUUID().slice(0, 8)}`;
    const imported = await api.post("/user-imports", largeUser(big, 4000, 40, 50));
    expect(imported.status).toBe(201);
    const others = [await makePerson(server.url, `bob-${randomUUID().slice(0, 6)}`, `OTH${randomUUID().slice(0, 8)}B`)];
    const dry = (await api.post(`/users/${big}/erase`, { dry_run: true })).body;
    expect(dry.total).toBeGreaterThan(10_000);
    const before = await snapshot(db);

    // The erasure, killed once some batches are in.
    void api.post(`/users/${big}/erase`, { confirm: true }).catch(() => {});
    const deadline = Date.now() + 120_000;
    for (;;) {
      const [row] = await queryPostgres(db.url!, `SELECT counts FROM privacy_erasures WHERE user_id = $1`, [big]);
      const done = row ? Object.values(row.counts as Record<string, number>).reduce((a, b) => a + b, 0) : 0;
      if (done >= 1000) break;
      if (Date.now() > deadline) throw new Error("the erasure did not start");
      await new Promise((r) => setTimeout(r, 10));
    }
    process.kill(server.pid!, "SIGKILL");
    await new Promise((r) => setTimeout(r, 500));
    server = null;

    // Whole batches: the counts committed with the batches are exactly the rows gone.
    const [mark] = await queryPostgres(db.url!, `SELECT counts FROM privacy_erasures WHERE user_id = $1`, [big]);
    expect(mark, "the mark stays after a kill").toBeTruthy();
    const mid = await snapshot(db);
    for (const [t, n] of Object.entries(mark.counts as Record<string, number>)) {
      expect(before.get(t)!.length - mid.get(t)!.length, `rows gone from ${t}`).toBe(n);
    }
    const goneSoFar = Object.values(mark.counts as Record<string, number>).reduce((a, b) => a + b, 0);
    expect(goneSoFar).toBeLessThan(dry.total);

    server = await db.startApp({ env });
    api = apiClient(server.url);
    // Meanwhile the user is frozen: writes fail, nothing is half-written.
    const write = await api.post(`/users/${big}/memories`, { memory_type: "fact", content: "written during the erasure" });
    expect(write.status).toBe(409);
    expect(write.body.error.code).toBe("erasure_in_progress");
    // Other users write as usual.
    expect((await api.post(`/users/${others[0].userId}/memories`, { memory_type: "fact", content: "still writable" })).status).toBe(201);
    const during = await snapshot(db);

    const again = await api.post(`/users/${big}/erase`, { confirm: true });
    expect(again.status).toBe(200);
    expect(again.body.receipt.resumed).toBe(true);
    expect(again.body.receipt.counts).toEqual(dry.counts);
    expect(again.body.receipt.probes.passed).toBe(true);
    const after = await snapshot(db);
    expect(rowsWith(after, big)).toEqual({});
    expect((await queryPostgres(db.url!, `SELECT count(*)::int AS n FROM privacy_erasures`))[0].n).toBe(0);
    expectOthersUntouched(during, after, others);
    for (const [t, rows] of during) {
      if (ERASURE_WRITES.has(t)) continue;
      for (const r of rows) if (!r.includes(big) && !after.get(t)!.includes(r) && t !== "memory_user_counts" && t !== "memory_embeddings") {
        throw new Error(`a row not of ${big} went from ${t}: ${r.slice(0, 200)}`);
      }
    }
  });
});
