import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { projectSql } from "@/lib/db/project-sql";
import { deleteMemory } from "@/lib/memories/delete-memory";
import { saveMemory } from "@/lib/memories/save-memory";
import { setMemoryStatus } from "@/lib/memories/set-memory-status";
import { updateMemory } from "@/lib/memories/update-memory";
import { changesSince } from "@/lib/replay/changes-since";
import { useEmbeddedDatabase } from "../helpers/embedded-database";

// changesSince reads its rows as one packed JSON text (a scrubber step onto an early turn reads
// up to 200 changed memories): every field of every kind of change must come out as the rows
// themselves say, times to the millisecond as the database driver reads them.

const embedded = useEmbeddedDatabase();

describe("memories changed since a replayed instant", () => {
  it("edited, archived, created later and deleted: each with its contents and times of the rows", async () => {
    const sql = projectSql(embedded.db.sql, `since-${randomUUID().slice(0, 8)}`);
    const user = "since@example.com";
    const save = async (content: string, extra: Record<string, unknown> = {}) => (await saveMemory(sql, user, { memory_type: "fact", content, ...extra } as never)).memory;
    const edited = await save("Lives in Porto", { structured_data: { city: "Porto" } });
    const archived = await save("Works nights");
    const deleted = await save("Has a dog named Rui");
    const kept = await save("Drinks oat milk");
    await new Promise((r) => setTimeout(r, 5));
    const [{ t }] = await sql.query<{ t: Date }>(`SELECT clock_timestamp() AS t`);
    const at = new Date(t).toISOString();
    await new Promise((r) => setTimeout(r, 5));
    await updateMemory(sql, edited.id, { content: "Lives in Lisbon", version: edited.version } as never);
    await setMemoryStatus(sql, archived.id, "archived");
    const later = await save("Plays the cello", { importance_score: 0.9 });
    await setMemoryStatus(sql, deleted.id, "archived");
    await deleteMemory(sql, deleted.id, true);

    const row = async (id: string) =>
      (await sql.query<{ created_at: Date; updated_at: Date }>(`SELECT created_at, updated_at FROM memories WHERE project_id = $1 AND id = $2`, [sql.projectId, id]))[0];
    const [del] = await sql.query<{ created_at: Date }>(`SELECT created_at FROM memory_events WHERE project_id = $1 AND memory_id = $2 AND event_type = 'delete'`, [sql.projectId, deleted.id]);
    const r = await changesSince(sql, user, at, [edited.id, kept.id]);
    const by = Object.fromEntries(r.memories.map((c) => [c.memory_id, c]));
    expect(r.truncated).toBe(false);
    expect(Object.keys(by).sort()).toEqual([edited.id, archived.id, later.id, deleted.id].sort());
    expect(by[edited.id]).toEqual({
      memory_id: edited.id, changes: ["edited_since"], memory_type: "fact", content: "Lives in Lisbon", content_then: "Lives in Porto", status: "active",
      created_at: (await row(edited.id)).created_at.toISOString(), changed_at: (await row(edited.id)).updated_at.toISOString(),
    });
    expect(by[archived.id]).toEqual({
      memory_id: archived.id, changes: ["archived_since"], memory_type: "fact", content: "Works nights", content_then: null, status: "archived",
      created_at: (await row(archived.id)).created_at.toISOString(), changed_at: (await row(archived.id)).updated_at.toISOString(),
    });
    expect(by[later.id]).toEqual({
      memory_id: later.id, changes: ["created_later"], memory_type: "fact", content: "Plays the cello", content_then: null, status: "active",
      created_at: (await row(later.id)).created_at.toISOString(), changed_at: (await row(later.id)).updated_at.toISOString(),
    });
    expect(by[deleted.id]).toEqual({
      memory_id: deleted.id, changes: ["deleted_since"], memory_type: "fact", content: "Has a dog named Rui", content_then: null, status: null,
      created_at: deleted.created_at, changed_at: new Date(del.created_at).toISOString(),
    });
    // Newest change first among the rows that still exist.
    const order = r.memories.filter((c) => c.status !== null).map((c) => c.changed_at);
    expect(order).toEqual([...order].sort().reverse());
  }, 60_000);
});
