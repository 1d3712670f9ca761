import { DEFAULT_PROJECT_ID, projectSql } from "@/lib/db/project-sql";
import { describe, expect, it } from "vitest";
import { loadThreadMessages } from "@/lib/context/load-thread-messages";
import { insertTurns } from "@/lib/messages/insert-turns";
import { ZHistoryQuery, ZTurnInput } from "@/lib/messages/schemas";
import { loadThreadIds } from "@/lib/threads/load-thread";
import { getHistory } from "@/lib/window/get-history";
import { useRecordedDatabase } from "../helpers/recorded-database";

// The active leaf an import recorded (model_config.active_leaf_message_id) is where the
// thread, the window and the context end when the caller names no leaf; the readers still
// make one statement per page (the bound is part of it).

const rec = useRecordedDatabase();
const turn = (t: Record<string, unknown>) => ZTurnInput.parse(t);
const at = (i: number) => new Date(Date.UTC(2025, 0, 1) + i * 60_000).toISOString();

async function tree(modelConfig: unknown) {
  const [c] = await rec.db.sql.query<{ id: string }>(`INSERT INTO conversations (id, app_id, model_config) VALUES (gen_random_uuid(), 'leaf', $1::jsonb) RETURNING id`, [JSON.stringify(modelConfig)]);
  const sql = projectSql(rec.db.sql, DEFAULT_PROJECT_ID);
  const [r] = await insertTurns(sql, c.id, [turn({ query: "root", answer: "r", parent_message_id: null, created_at: at(0) })]);
  const [a] = await insertTurns(sql, c.id, [turn({ query: "active", answer: "a", parent_message_id: r.id, created_at: at(1) })]);
  const [n] = await insertTurns(sql, c.id, [turn({ query: "newest", answer: "n", parent_message_id: r.id, created_at: at(2) })]);
  return { c: c.id, r: r.id, a: a.id, n: n.id };
}

describe("the recorded active leaf is the default leaf", () => {
  it("thread, history and context follow it, in one statement per read; a named leaf still wins", async () => {
    const t0 = await tree({});
    const t = await tree({ source: "chatgpt", active_leaf_message_id: "x" });
    await rec.db.sql.query(`UPDATE conversations SET model_config = jsonb_set(model_config, '{active_leaf_message_id}', to_jsonb($2::text)) WHERE id = $1`, [t.c, t.a]);
    const { sql } = rec;
    rec.resetReads();
    expect(await loadThreadIds(sql, t.c)).toEqual([t.a, t.r]);
    expect(rec.reads()).toHaveLength(1);
    expect((await getHistory(sql, t.c, ZHistoryQuery.parse({ max_token_limit: "100000" }), [])).thread_message_ids).toEqual([t.a, t.r]);
    expect((await loadThreadMessages(sql, t.c, undefined, "o200k_base")).map((m) => m.content)).toEqual(["root", "r", "active", "a"]);
    expect(await loadThreadIds(sql, t.c, t.n)).toEqual([t.n, t.r]);
    // No pointer, or one that names no turn of the conversation: the newest row, as Dify.
    expect(await loadThreadIds(sql, t0.c)).toEqual([t0.n, t0.r]);
    await rec.db.sql.query(`UPDATE conversations SET model_config = '{"active_leaf_message_id": "not a uuid"}' WHERE id = $1`, [t0.c]);
    expect(await loadThreadIds(sql, t0.c)).toEqual([t0.n, t0.r]);
    await rec.db.sql.query(`UPDATE conversations SET model_config = jsonb_build_object('active_leaf_message_id', $2::text) WHERE id = $1`, [t0.c, t.a]);
    expect((await getHistory(sql, t0.c, ZHistoryQuery.parse({}), [])).thread_message_ids).toEqual([t0.n, t0.r]);
  });
});
