import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { projectSql } from "@/lib/db/project-sql";
import { detectConversations } from "@/lib/incidents/detect";
import { insertTurns } from "@/lib/messages/insert-turns";
import { textsCountedHere } from "@/lib/tokens/count-tokens";
import { INCIDENT_SET, loadScenarios, scoreFindings, type Found } from "../helpers/incident-set";
import { useEmbeddedDatabase } from "../helpers/embedded-database";

// What detectConversations reads in its one statement per batch, through the real (embedded)
// database: a memory as it was at the turn (its history, not its live row, when they differ)
// and the user's suppressions. The scenario: a captured turn asks for a seat, the aisle-seat
// memory was not in the prompt (a missed memory).

const embedded = useEmbeddedDatabase();

const AISLE = INCIDENT_SET.find((s) => s.name === "aisle seat missed on a booking (captured)")!;

async function load(project: string) {
  const sql = projectSql(embedded.db.sql, project);
  const [l] = await loadScenarios(sql, [AISLE], { suffix: project });
  const memoryId = l.memoryIds.get("aisle")!;
  const turnAt = Number((await sql.query<{ t: number }>(`SELECT (extract(epoch FROM created_at) * 1000)::float8 AS t FROM messages WHERE project_id = $1 AND id = $2`, [sql.projectId, l.turnIds.get("t2")])).at(0)!.t);
  const found = async () => {
    await detectConversations(sql, [l.conversationId]);
    return sql.query<{ kind: string; subject: string; evidence: { memory: { content: string } } }>(`SELECT kind, subject, evidence FROM incidents WHERE project_id = $1`, [sql.projectId]);
  };
  /** Rewrites the memory: the live row says `live`; its history says `before` until after the turn, then `live`. */
  const rewrite = async (before: string, live: string) => {
    await sql.query(`UPDATE memories SET content = $3, content_key = lower($3) WHERE project_id = $1 AND id = $2`, [sql.projectId, memoryId, live]);
    await sql.query(`UPDATE memory_events SET after = jsonb_set(after, '{content}', to_jsonb($3::text)) WHERE project_id = $1 AND memory_id = $2`, [sql.projectId, memoryId, before]);
    await sql.query(
      `INSERT INTO memory_events (project_id, id, memory_id, user_id, event_type, actor, after, created_at)
       VALUES ($1, $2, $3, $4, 'update', 'api', jsonb_build_object('content', $5::text, 'status', 'active', 'memory_type', 'preference'), $6)`,
      [sql.projectId, randomUUID(), memoryId, l.userId, live, new Date(turnAt + 60_000)],
    );
  };
  return { sql, l, memoryId, found, rewrite };
}

describe("what the rules read of a batch", () => {
  it("judges a turn by the memory as it was then, not as it is now", async () => {
    const edited = await load("read-history-a");
    // At the turn it was the aisle-seat preference; it became an unrelated fact a minute later.
    await edited.rewrite("Prefers aisle seats on flights", "Drinks green tea every morning");
    const a = await edited.found();
    expect(a.map((f) => [f.kind, f.subject])).toEqual([["missed_memory", edited.memoryId]]);
    expect(a[0].evidence.memory.content).toBe("Prefers aisle seats on flights");

    // The other way round: an unrelated fact at the turn, the aisle seats only later.
    const later = await load("read-history-b");
    await later.rewrite("Drinks green tea every morning", "Prefers aisle seats on flights");
    expect(await later.found()).toEqual([]);
  });

  it("keeps a suppressed memory-and-rule pair of the user quiet, and only that pair", async () => {
    const s = await load("read-suppressed");
    await s.sql.query(`INSERT INTO incident_suppressions (project_id, user_id, kind, memory_id, incident_id) VALUES ($1, $2, 'restated_memory', $3, $4)`, [s.sql.projectId, s.l.userId, s.memoryId, randomUUID()]);
    expect((await s.found()).map((f) => f.kind)).toEqual(["missed_memory"]);
    await s.sql.query(`DELETE FROM incidents WHERE project_id = $1`, [s.sql.projectId]);
    await s.sql.query(`INSERT INTO incident_suppressions (project_id, user_id, kind, memory_id, incident_id) VALUES ($1, $2, 'missed_memory', $3, $4)`, [s.sql.projectId, s.l.userId, s.memoryId, randomUUID()]);
    expect(await s.found()).toEqual([]);
  });

  it("reads a batch holding more text than one read answers (the texts past it in pages) and judges every turn", async () => {
    const s = await load("read-paged");
    // A conversation of 3 x 1.2 MB that sorts before the scenario's: the scenario's turns come past
    // the first read's 2 MB of text, as ids only, and their texts in the pages after it.
    const filler = "00000000-0000-4000-8000-000000000001";
    await s.sql.query(`INSERT INTO conversations (project_id, id, app_id, name) VALUES ($1, $2, 'filler', 'filler')`, [s.sql.projectId, filler]);
    const big = (i: number) => `${i} ${"lorem ipsum dolor sit amet ".repeat(45_000)}`;
    await insertTurns(s.sql, filler, [0, 1, 2].map((i) => ({ query: big(i), answer: "ok", files: [], metadata: null })), { minimal: true });
    const result = await detectConversations(s.sql, [filler, s.l.conversationId]);
    expect(result.turns).toBe(3 + AISLE.turns.length);
    const found = await s.sql.query<{ kind: string; subject: string }>(`SELECT kind, subject FROM incidents WHERE project_id = $1 AND conversation_id = $2`, [s.sql.projectId, s.l.conversationId]);
    expect(found.map((f) => [f.kind, f.subject])).toEqual([["missed_memory", s.memoryId]]);
  }, 60_000);
});

describe("the rules on the server's thread", () => {
  it("judge the labelled set (windows of message_window and token_buffer) from the stored token counts, counting no text on this thread", async () => {
    // Counting here would build the tokenizer on the thread that serves requests (~0.5 s once
    // per process: the /ready stall bench:incidents measured during a scan).
    const sql = projectSql(embedded.db.sql, "read-no-count");
    const loaded = await loadScenarios(sql, INCIDENT_SET, { suffix: "nocount" });
    const before = textsCountedHere();
    await detectConversations(sql, loaded.map((l) => l.conversationId));
    expect(textsCountedHere()).toBe(before);
    const found = await sql.query<Found>(`SELECT kind, message_id, subject, conversation_id FROM incidents WHERE project_id = $1`, [sql.projectId]);
    const score = scoreFindings(loaded, found);
    expect(score.missed).toEqual([]);
    expect(score.falsePositives).toEqual([]);
    expect(score.metrics.find((m) => m.kind === "dropped_reference")!.tp).toBe(5);
  }, 120_000);
});

describe("detection on ingest reads the new turns and the two before each, not the conversation", () => {
  it("finds the labelled incidents when each turn is checked alone, as it arrives, and none on clean turns", async () => {
    const sql = projectSql(embedded.db.sql, "read-ingest");
    const loaded = await loadScenarios(sql, INCIDENT_SET, { suffix: "ingest" });
    // Newest turn last: a stale memory is found when the correcting turn arrives (up to two
    // turns later), a dropped reference needs the thread's whole history.
    for (const l of loaded) for (const id of l.turnIds.values()) await detectConversations(sql, [l.conversationId], { messageIds: new Set([id]) });
    const found = await sql.query<Found>(`SELECT kind, message_id, subject, conversation_id FROM incidents WHERE project_id = $1`, [sql.projectId]);
    const score = scoreFindings(loaded, found);
    expect(score.missed).toEqual([]);
    expect(score.falsePositives).toEqual([]);
    expect(score.onClean).toBe(0);
  }, 120_000);

  it("checks a capture's newest turns of each conversation", async () => {
    const sql = projectSql(embedded.db.sql, "read-newest");
    const [l] = await loadScenarios(sql, [AISLE], { suffix: "newest" });
    await detectConversations(sql, [l.conversationId], { newest: 1 });
    expect((await sql.query<{ message_id: string }>(`SELECT message_id FROM incidents WHERE project_id = $1`, [sql.projectId])).map((r) => r.message_id)).toEqual([l.turnIds.get("t2")]);
  });
});
