import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseImportText } from "@/lib/imports/parse-import";

const text = fs.readFileSync(path.join(__dirname, "../fixtures/imports/mem0.json"), "utf8");
const id = (n: number) => `c1d2e3f4-0000-4000-8000-00000000000${n}`;

describe("Mem0 export parser", () => {
  const parsed = parseImportText(text, undefined);
  const byId = new Map(parsed.memories.map((m) => [m.externalId, m]));

  it("is detected from results with memory, and maps type from categories or metadata", () => {
    expect(parsed.format).toBe("mem0");
    expect(byId.get(id(1))?.memory_type).toBe("preference");
    expect(byId.get(id(2))?.memory_type).toBe("fact");
    expect(byId.get(id(3))?.memory_type).toBe("skill");
  });

  it("keeps times (in UTC), the Mem0 id, hash and categories", () => {
    const m = byId.get(id(1))!;
    expect(m).toMatchObject({ user_id: "ana@example.com", content: "Prefers window seats on trains", status: "active" });
    expect(m.created_at).toBe("2026-01-02T17:00:00.000Z");
    expect(m.updated_at).toBe("2026-01-05T18:30:00.000Z");
    expect(m.structured_data).toEqual({
      mem0: { id: id(1), hash: "3b5f0a1c9d2e4f60718293a4b5c6d7e8", categories: ["travel", "user_preferences"], metadata: { source: "chat" } },
    });
  });

  it("maps history events (ADD, UPDATE) with their old and new text and times", () => {
    expect(byId.get(id(1))!.history).toEqual([
      { type: "create", before: null, after: "Prefers aisle seats on trains", created_at: "2026-01-02T17:00:00.000Z", reason: "Mem0 ADD" },
      { type: "update", before: "Prefers aisle seats on trains", after: "Prefers window seats on trains", created_at: "2026-01-05T18:30:00.000Z", reason: "Mem0 UPDATE" },
    ]);
  });

  it("keeps a memory deleted in Mem0 (only in history) as archived", () => {
    const gone = byId.get(id(9))!;
    expect(gone).toMatchObject({ content: "Is allergic to peanuts", status: "archived", user_id: "ana@example.com" });
    expect(gone.history.map((e) => e.type)).toEqual(["create", "archive"]);
  });

  it("names the record and field of a memory it cannot import", () => {
    expect(parsed.problems).toEqual([{ record: `memory ${id(4)}`, field: "user_id", message: "missing (nor agent_id or run_id to stand in)" }]);
  });

  it("reads a bare array (GET /v1/memories/ without paging)", () => {
    const p = parseImportText(JSON.stringify([{ id: "x1", memory: "Likes tea", user_id: "u", created_at: "2026-01-01T00:00:00Z", updated_at: "2026-01-01T00:00:00Z" }]), undefined);
    expect(p.format).toBe("mem0");
    expect(p.memories[0]).toMatchObject({ externalId: "x1", memory_type: "fact", content: "Likes tea" });
  });
});
