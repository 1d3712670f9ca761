import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { projectSql, type ProjectSql } from "@/lib/db/project-sql";
import { detectWrittenTurns } from "@/lib/incidents/ingest-filter";
import { checkIncidentsSoon, incidentsIdle } from "@/lib/incidents/on-ingest";
import { insertTurns } from "@/lib/messages/insert-turns";
import { ZTurnInput } from "@/lib/messages/schemas";
import { ZProfileSettings } from "@/lib/profiles/schemas";
import { INCIDENT_SET, loadScenarios, scoreFindings, type Found } from "../helpers/incident-set";
import { useEmbeddedDatabase } from "../helpers/embedded-database";

// Detection on ingest given the writer's questions (the messages API) reads, for a user without
// memories, only the turns that can fire on their own text (lib/incidents/ingest-filter.ts). The
// filter must never drop a turn the rules fire on: the labelled set through the queue finds what
// the full check finds, and a question whose tokens outnumber its UTF-16 units still counts as
// possibly over the window.

const embedded = useEmbeddedDatabase();

const found = (sql: ProjectSql) => sql.query<Found>(`SELECT kind, message_id, subject, conversation_id FROM incidents WHERE project_id = $1`, [sql.projectId]);

async function conversation(sql: ProjectSql, app: string, user: string) {
  const id = randomUUID();
  await sql.query(`INSERT INTO conversations (project_id, id, app_id, end_user_id, name) VALUES ($1, $2, $3, $4, 'filter')`, [sql.projectId, id, app, user]);
  return id;
}

async function write(sql: ProjectSql, conversationId: string, queries: string[]) {
  const stored = await insertTurns(sql, conversationId, queries.map((q) => ZTurnInput.parse({ query: q, answer: "Sure." })), { minimal: true });
  return stored.map((s, i) => ({ id: s.id, query: queries[i] }));
}

describe("detection on ingest with the writer's questions", () => {
  it("finds every labelled incident through the queue, and none on clean turns", async () => {
    const sql = projectSql(embedded.db.sql, "ingest-filter-set");
    const loaded = await loadScenarios(sql, INCIDENT_SET, { suffix: "filter" });
    // As the messages API queues a batch: the conversation's turns with their questions.
    for (const l of loaded) checkIncidentsSoon(sql, { conversationIds: [l.conversationId], turns: l.scenario.turns.map((t) => ({ id: l.turnIds.get(t.key)!, query: t.q })) });
    await incidentsIdle();
    const score = scoreFindings(loaded, await found(sql));
    expect(score.missed).toEqual([]);
    expect(score.falsePositives).toEqual([]);
    expect(score.onClean).toBe(0);
    // The kinds a user without memories can have, all found (each scenario of them has none).
    expect(score.metrics.find((m) => m.kind === "dropped_reference")!.tp).toBe(5);
    expect(score.metrics.find((m) => m.kind === "over_context_window")!.tp).toBe(5);
  }, 120_000);

  it("keeps a question whose tokens outnumber its characters when they exceed the window", async () => {
    const sql = projectSql(embedded.db.sql, "ingest-filter-wide");
    // gpt-4's 8 192 tokens less 4 000 reserved: 4 192. The question is 2 000 UTF-16 units, 6 000
    // UTF-8 bytes and 6 000 tokens in both encodings: over the window, though short in characters.
    await sql.query(`INSERT INTO agent_profile_versions (project_id, app_id, version, effective_from, settings) VALUES ($1, 'wide', 1, $2, $3::jsonb)`, [
      sql.projectId,
      new Date("2020-01-01T00:00:00Z"),
      JSON.stringify(ZProfileSettings.parse({ model: "gpt-4", reserved_output_tokens: 4000, strategy: { type: "message_window" } })),
    ]);
    const conv = await conversation(sql, "wide", "no-memories");
    const turns = await write(sql, conv, ["Hello there.", "ꙮ".repeat(2000)]);
    const result = await detectWrittenTurns(sql, new Map([[conv, turns]]));
    expect(result.turns).toBe(1);
    expect((await found(sql)).map((f) => [f.kind, f.message_id])).toEqual([["over_context_window", turns[1].id]]);
  });

  it("reads no turn of a user without memories whose questions cannot fire, and every turn of a user with memories", async () => {
    const sql = projectSql(embedded.db.sql, "ingest-filter-skip");
    const plain = ["What's the weather like?", "Book a table for two.", "Thanks, that is all."];
    const none = await conversation(sql, "agent", "no-memories");
    expect((await detectWrittenTurns(sql, new Map([[none, await write(sql, none, plain)]]))).turns).toBe(0);
    // A back reference is read (the dropped-reference rule), the plain turns beside it are not.
    const back = await write(sql, none, [...plain, "As I said, the table by the window."]);
    expect((await detectWrittenTurns(sql, new Map([[none, back]]))).turns).toBe(1);

    const some = await conversation(sql, "agent", "has-memories");
    await sql.query(
      `INSERT INTO memories (project_id, id, user_id, memory_type, content, content_key) VALUES ($1, $2, 'has-memories', 'fact', 'Lives in Porto', 'lives in porto')`,
      [sql.projectId, randomUUID()],
    );
    expect((await detectWrittenTurns(sql, new Map([[some, await write(sql, some, plain)]]))).turns).toBe(3);
  });
});
