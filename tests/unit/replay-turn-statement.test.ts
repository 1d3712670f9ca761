import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { projectSql, type ProjectSql } from "@/lib/db/project-sql";
import { LEXICAL_MODEL } from "@/lib/embeddings/lexical-embedder";
import { activeModelAt } from "@/lib/embeddings/model-at";
import { countsOfStatus, readAsOfCounts } from "@/lib/memories/as-of/search-as-of";
import { saveMemory } from "@/lib/memories/save-memory";
import { setMemoryStatus } from "@/lib/memories/set-memory-status";
import { savedPresets, savePresets } from "@/lib/models/model-settings";
import { insertTurns } from "@/lib/messages/insert-turns";
import { ZTurnInput } from "@/lib/messages/schemas";
import { createProfileVersion, profileInForce } from "@/lib/profiles/profile-versions";
import { ZProfileVersionCreate } from "@/lib/profiles/schemas";
import { loadReplayTurn, type ReplayTurn } from "@/lib/replay/load-turn";
import { replayTurn } from "@/lib/replay/replay-turn";
import { findAnchor } from "@/lib/threads/load-thread";
import { UUID_NIL } from "@/lib/threads/uuid-nil";
import { useEmbeddedDatabase } from "../helpers/embedded-database";

// A replay reads its turn, the profile version in force at the turn and the retrieval logged
// around it in one statement (lib/replay/load-turn.ts; a scrubber step replays one turn after
// another). Each part must be what its own statement read before: the profile as
// profileInForce reads it, the logged retrieval and its hits as the two statements below
// (findLoggedRetrieval's, kept here as the reference), the leaf's position as findAnchor.

const embedded = useEmbeddedDatabase();
const MIN = 60_000;
const T0 = Date.UTC(2026, 0, 10, 9, 0, 0);
const iso = (ms: number) => new Date(ms).toISOString();

/** The previous read path: the logged retrieval around a turn, then its hits, two statements. */
async function loggedAsBefore(sql: ProjectSql, turn: ReplayTurn) {
  const upper = new Date(Date.parse(turn.createdAt) + 10 * MIN).toISOString();
  const [r] = await sql.query<{ id: string; created_at: Date | string; query: string; embedding_model: string; k: number; weights: Record<string, number>; dry_run: boolean }>(
    `SELECT id, created_at, query, embedding_model, k, weights, dry_run FROM memory_retrievals
      WHERE project_id = $1 AND conversation_id = $2 AND created_at <= $3::timestamptz AND ($4::timestamptz IS NULL OR created_at > $4::timestamptz)
      ORDER BY (query = $5) DESC, abs(extract(epoch FROM created_at - $6::timestamptz)), id
      LIMIT 1`,
    [sql.projectId, turn.conversationId, upper, turn.leafCreatedAt, turn.query, turn.createdAt],
  );
  if (!r) return null;
  const hits = await sql.query<{ memory_id: string; rank: number; score: number; cosine: number; time_decay: number; importance: number }>(
    `SELECT memory_id, rank, score, cosine, time_decay, importance FROM memory_retrieval_hits WHERE retrieval_id = $1 AND project_id = $2 ORDER BY rank`,
    [r.id, sql.projectId],
  );
  return {
    retrieval_id: r.id,
    created_at: new Date(r.created_at).toISOString(),
    query: r.query,
    embedding_model: r.embedding_model,
    k: Number(r.k),
    weights: r.weights,
    dry_run: r.dry_run,
    hits: hits.map((h) => ({ ...h, rank: Number(h.rank), score: Number(h.score), cosine: Number(h.cosine), time_decay: Number(h.time_decay), importance: Number(h.importance) })),
  };
}

async function logRetrieval(sql: ProjectSql, o: { conversation: string; user: string; at: number; query: string; hits: string[]; id?: string }) {
  const id = o.id ?? randomUUID();
  await sql.query(
    `INSERT INTO memory_retrievals (id, project_id, user_id, query, conversation_id, embedding_model, k, weights, dry_run, latency_ms, result_count, created_at)
     VALUES ($1, $2, $3, $4, $5, 'lexical-256', 3, $6::jsonb, false, 1.5, $7, $8::timestamptz)`,
    [id, sql.projectId, o.user, o.query, o.conversation, JSON.stringify({ similarity: 0.7, recency: 0.2, importance: 0.1 }), o.hits.length, iso(o.at)],
  );
  for (const [i, m] of o.hits.entries()) {
    // Scores that do not print short: the packed JSON must give back the very same doubles.
    await sql.query(
      `INSERT INTO memory_retrieval_hits (retrieval_id, project_id, rank, memory_id, score, cosine, time_decay, importance) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [id, sql.projectId, i + 1, m, 0.1 + 0.2 + i / 3, 1 / 3, Math.PI / 4, 2 / 7],
    );
  }
  return id;
}

describe("a replay's turn statement", () => {
  it("reads the profile in force, the logged retrieval with its hits and the leaf's position as their own statements did, for every turn", async () => {
    const sql = projectSql(embedded.db.sql, `turnstmt-${randomUUID().slice(0, 8)}`);
    const user = "traveller@example.com";
    const app = "trip-app";
    const conversation = randomUUID();
    await sql.query(`INSERT INTO conversations (id, project_id, app_id, end_user_id, name) VALUES ($1, $2, $3, $4, 'trip')`, [conversation, sql.projectId, app, user]);
    const memories = [];
    for (const content of ["Prefers window seats", "Vegetarian", "Flies from Lisbon", "Allergic to cats"]) {
      memories.push((await saveMemory(sql, user, { memory_type: "fact", content } as never)).memory.id);
    }
    // Turns a minute apart: a linear thread, a branch off turn 2 and a legacy UUID_NIL turn.
    const ids = Array.from({ length: 9 }, () => randomUUID());
    const turn = (i: number, parent: string | null, query: string) => ZTurnInput.parse({ id: ids[i], parent_message_id: parent, query, answer: `answer ${i}`, created_at: iso(T0 + i * MIN) });
    await insertTurns(sql, conversation, [
      turn(0, null, "where should I sit"),
      turn(1, ids[0], "what can I eat on board"),
      turn(2, ids[1], "book the flight"),
      turn(3, ids[2], "what about hotels"),
      turn(4, ids[1], "book the flight again"),
      turn(5, UUID_NIL, "and trains"),
      turn(6, ids[5], "what about hotels"),
      ZTurnInput.parse({ id: ids[7], parent_message_id: ids[6], query: "and back home", answer: "answer 7", created_at: iso(T0 + 60 * MIN) }),
      ZTurnInput.parse({ id: ids[8], parent_message_id: ids[7], query: "thanks", answer: "answer 8", created_at: iso(T0 + 61 * MIN) }),
    ]);
    // Profile versions: before every turn, one exactly at turn 3's instant, one between 4 and 5.
    const version = async (k: number, at: number) =>
      createProfileVersion(sql, app, ZProfileVersionCreate.parse({ settings: { strategy: { type: "message_window" }, memory: { k }, system_prompt: `v${k}` }, effective_from: iso(at) }));
    await version(2, T0 - 5 * MIN);
    await version(3, T0 + 3 * MIN);
    await version(4, T0 + 4.5 * MIN);
    // Logged retrievals: around turn 1 (just before it, and a later one with another query),
    // one with turn 3's query 30 s after it, two equally near turn 4 (the smaller id wins),
    // one exactly at turn 6 + 10 min (kept) and one a millisecond past it (not), one of another conversation.
    await logRetrieval(sql, { conversation, user, at: T0 + MIN - 500, query: "what can I eat on board", hits: [memories[1], memories[0]] });
    await logRetrieval(sql, { conversation, user, at: T0 + MIN + 2_000, query: "something else", hits: [memories[2]] });
    await logRetrieval(sql, { conversation, user, at: T0 + 3 * MIN + 30_000, query: "what about hotels", hits: [memories[3], memories[2], memories[1]] });
    await logRetrieval(sql, { conversation, user, at: T0 + 4 * MIN - 1_000, query: "near 4", hits: [memories[0]], id: "00000000-0000-4000-8000-000000000002" });
    await logRetrieval(sql, { conversation, user, at: T0 + 4 * MIN + 1_000, query: "near 4", hits: [memories[1]], id: "00000000-0000-4000-8000-000000000001" });
    await logRetrieval(sql, { conversation, user, at: T0 + 16 * MIN, query: "late", hits: [] });
    await logRetrieval(sql, { conversation, user, at: T0 + 16 * MIN + 1, query: "too late", hits: [memories[0]] });
    const other = randomUUID();
    await sql.query(`INSERT INTO conversations (id, project_id, app_id, end_user_id, name) VALUES ($1, $2, $3, $4, 'other')`, [other, sql.projectId, app, user]);
    await logRetrieval(sql, { conversation: other, user, at: T0 + 2 * MIN, query: "book the flight", hits: [memories[0]] });

    const seen = new Set<string | null>();
    const byTurn: (string | null)[] = [];
    for (const id of ids) {
      const t = await loadReplayTurn(sql, conversation, id);
      expect(t.logged, `turn ${id}`).toEqual(await loggedAsBefore(sql, t));
      expect(t.profileAtTurn, `turn ${id}`).toEqual(await profileInForce(sql, app, new Date(t.createdAt)));
      expect(t.leafAnchor).toEqual(t.leafId ? await findAnchor(sql, conversation, t.leafId) : null);
      seen.add(t.logged?.query ?? null);
      byTurn.push(t.logged ? `${t.logged.query} ${t.logged.retrieval_id.slice(-1)}` : null);
      // The whole replay: with as_of at the turn's own instant the profile is read by its own
      // statement (baseSettings); both must give the same replay.
      const replay = await replayTurn(sql, { conversation_id: conversation, message_id: id });
      expect(replay).toEqual(await replayTurn(sql, { conversation_id: conversation, message_id: id, as_of: t.createdAt }));
    }
    // The cases above were met: the turn's query first, then the nearest (a millisecond apart
    // for turn 7), the bounds of the window, and a turn without one.
    expect(byTurn.map((q) => q?.replace(/ .$/, "") ?? null).length).toBe(9);
    expect(byTurn[4]).toBe("near 4 1");
    expect([...seen]).toEqual(["what can I eat on board", "what can I eat on board", "something else", "what about hotels", "near 4", "near 4", "late", "too late", null].filter((q, i, a) => a.indexOf(q) === i));
  }, 120_000);

  it("reads the saved presets, the embedding model of then and the end user's counts as their own statements did, and each replay is the one they gave", async () => {
    const sql = projectSql(embedded.db.sql, `turnstmt-${randomUUID().slice(0, 8)}`);
    const user = "walker@example.com";
    const app = "walk-app";
    const conversation = randomUUID();
    await sql.query(`INSERT INTO conversations (id, project_id, app_id, end_user_id, name) VALUES ($1, $2, $3, $4, 'walks')`, [conversation, sql.projectId, app, user]);
    const memories = [];
    for (const content of ["Walks every morning", "Likes hills", "Avoids crowds", "Owns a dog", "Lives near the river"]) {
      memories.push((await saveMemory(sql, user, { memory_type: "fact", content } as never)).memory.id);
    }
    // Two archived: the counts differ by status.
    await setMemoryStatus(sql, memories[3], "archived");
    await setMemoryStatus(sql, memories[4], "archived");
    // Another user's memory in the same project: not counted.
    await saveMemory(sql, "someone-else", { memory_type: "fact", content: "Walks at night" } as never);
    const ids = Array.from({ length: 8 }, () => randomUUID());
    await insertTurns(
      sql,
      conversation,
      ids.map((id, i) => ZTurnInput.parse({ id, parent_message_id: i ? ids[i - 1] : null, query: `where shall we walk ${i}`, answer: `by the river ${i}`, created_at: iso(T0 + i * MIN) })),
    );
    // The profile asks for a model whose saved preset has a small window: without the presets the prompt keeps more history.
    await createProfileVersion(sql, app, ZProfileVersionCreate.parse({ settings: { model: "walk-model", strategy: { type: "message_window" }, memory: { k: 3 } }, effective_from: iso(T0 - MIN) }));
    // Model switches: to a model not configured exactly at turn 3 (its replay cannot search: 409 on both paths),
    // back to the lexical one at turn 5, and to the unconfigured one a millisecond after turn 6 (turn 6 still lexical).
    const change = (at: string, model: string) =>
      sql.query(`INSERT INTO embedding_model_changes (project_id, active_from, model, dimensions, kind) VALUES ($1, $2::timestamptz, $3, 256, 'local')`, [sql.projectId, at, model]);
    await change(iso(T0 + 3 * MIN), "gone-model-256");
    await change(iso(T0 + 5 * MIN), LEXICAL_MODEL);
    await change(iso(T0 + 6 * MIN + 1), "gone-model-256");

    const replayOrError = (body: Parameters<typeof replayTurn>[1]) => replayTurn(sql, body).catch((e: Error) => ({ failed: `${e.name}: ${e.message}` }));
    const models: string[] = [];
    for (const presets of [null, [{ model: "walk-model", context_window: 160, encoding: "o200k_base" as const, exact: false }]]) {
      if (presets) await savePresets(sql, presets);
      for (const id of ids) {
        const t = await loadReplayTurn(sql, conversation, id);
        expect(t.presets).toEqual(await savedPresets(sql));
        const model = await activeModelAt(sql, t.createdAt);
        expect(t.searchAtTurn?.model, `turn ${ids.indexOf(id)}`).toEqual(model);
        expect(t.searchAtTurn?.userId).toBe(user);
        for (const status of ["active", "archived"]) {
          expect(countsOfStatus(t.searchAtTurn!.counts, status), `${status} at turn ${ids.indexOf(id)}`).toEqual(await readAsOfCounts(sql, user, model.model, status));
        }
        if (!presets) models.push(model.model);
        // The whole replay: with as_of at the turn's own instant, the model and counts are read by their own statements.
        const replay = await replayOrError({ conversation_id: conversation, message_id: id });
        expect(replay, `turn ${ids.indexOf(id)}`).toEqual(await replayOrError({ conversation_id: conversation, message_id: id, as_of: t.createdAt }));
      }
    }
    // The cases were met: each model of then, the switch at a turn's very instant, the presets changing a prompt.
    expect(models).toEqual([LEXICAL_MODEL, LEXICAL_MODEL, LEXICAL_MODEL, "gone-model-256", "gone-model-256", LEXICAL_MODEL, LEXICAL_MODEL, "gone-model-256"]);
    expect(countsOfStatus((await loadReplayTurn(sql, conversation, ids[0])).searchAtTurn!.counts, "archived").n).toBe(2);
    const last = await replayTurn(sql, { conversation_id: conversation, message_id: ids[6] });
    expect(last.context.dropped.length).toBeGreaterThan(0);
  }, 120_000);
});
