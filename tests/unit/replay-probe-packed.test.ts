import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { projectSql } from "@/lib/db/project-sql";
import { probeUserFast } from "@/lib/memories/as-of/history-probe";
import { deleteMemory } from "@/lib/memories/delete-memory";
import { saveMemory } from "@/lib/memories/save-memory";
import { ZSearchInput } from "@/lib/memories/schemas";
import { searchMemories } from "@/lib/memories/search-memories";
import { setMemoryStatus } from "@/lib/memories/set-memory-status";
import { updateMemory } from "@/lib/memories/update-memory";
import { useEmbeddedDatabase } from "../helpers/embedded-database";

// A replay's candidates are probed by id (probeUserFast with `ids`: what rankMemoriesAsOf asks
// at every scrubber step) in one statement of packed JSON instead of three row sets. It must
// answer exactly what the user-wide probe answers for those ids (rows, tombstones, accesses
// then and in all), at instants before, between and after edits, an archive, a delete and
// counted retrievals: the replay is built on it.

const embedded = useEmbeddedDatabase();

const byId = <T extends { id: string }>(xs: T[]) => [...xs].sort((a, b) => (a.id < b.id ? -1 : 1));

describe("the packed probe of a replay's candidates", () => {
  it("answers the same rows, tombstones and accesses as the user-wide probe, at every instant of a history", async () => {
    const sql = projectSql(embedded.db.sql, `probe-${randomUUID().slice(0, 8)}`);
    const user = "packed@example.com";
    const other = "other@example.com";
    const instants: string[] = [];
    const tick = async () => {
      // An instant strictly between two writes (database times carry microseconds).
      await new Promise((r) => setTimeout(r, 5));
      const [{ t }] = await sql.query<{ t: string }>(`SELECT to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS t`);
      instants.push(new Date(t).toISOString());
      await new Promise((r) => setTimeout(r, 5));
    };
    await tick();
    const save = async (content: string, extra: Record<string, unknown> = {}, who = user) =>
      (await saveMemory(sql, who, { memory_type: "preference", content, ...extra } as never)).memory.id;
    const seat = await save("Prefers a window seat on flights", { structured_data: { seat: "window", nested: { a: [1, 2.5] } }, importance_score: 0.7 });
    const diet = await save("Does not eat shellfish", { confidence: 0.35 });
    const hotel = await save("Likes small guesthouses in old towns");
    const gone = await save("Has a cat named Miso");
    const theirs = await save("Prefers an aisle seat", {}, other);
    await tick();
    // Counted retrievals (accesses), then edits, an archive and a delete, each at its own instant.
    await searchMemories(sql, user, ZSearchInput.parse({ query: "window seat flights" }), { recordAccess: true });
    await tick();
    await updateMemory(sql, seat, { content: "Prefers a window seat, front rows", version: 1 } as never);
    await searchMemories(sql, user, ZSearchInput.parse({ query: "shellfish guesthouse" }), { recordAccess: true });
    await tick();
    await setMemoryStatus(sql, hotel, "archived");
    await setMemoryStatus(sql, gone, "archived");
    await deleteMemory(sql, gone, true);
    await tick();
    await updateMemory(sql, diet, { importance_score: 0.9, structured_data: { allergy: true }, version: 1 } as never);
    await tick();

    const ids = [seat, diet, hotel, gone, theirs, randomUUID()];
    let compared = 0;
    for (const at of instants) {
      const packed = await probeUserFast(sql, at, user, { ids });
      const wide = (await probeUserFast(sql, at, user)).filter((p) => ids.includes(p.id));
      expect(byId(packed), `probe at ${at}`).toEqual(byId(wide));
      compared += packed.length;
    }
    // The history was seen: rows alive, a tombstone, accesses counted.
    const last = await probeUserFast(sql, instants[3], user, { ids });
    expect(last.find((p) => p.id === gone)?.live ?? null).toBeNull();
    expect(last.find((p) => p.id === gone)?.tombstone).toMatchObject({ content: "Has a cat named Miso" });
    expect(last.find((p) => p.id === seat)?.access.count).toBeGreaterThan(0);
    expect(last.find((p) => p.id === seat)?.live?.structured_data).toEqual({ seat: "window", nested: { a: [1, 2.5] } });
    expect(last.some((p) => p.id === theirs)).toBe(false);
    expect(compared).toBeGreaterThan(10);
  }, 60_000);
});
