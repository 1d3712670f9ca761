import { describe, expect, it } from "vitest";
import { assembleContext } from "@/lib/context/assemble-context";
import { ZContextInput } from "@/lib/context/schemas";
import { insertTurns } from "@/lib/messages/insert-turns";
import { ZTurnInput } from "@/lib/messages/schemas";
import { useRecordedDatabase } from "../helpers/recorded-database";

// /context reads only the stored text its strategy can send (textScopeFor in
// lib/context/assemble-context.ts): a window of the newest turns never reads the older turns'
// text; auto_context and summary_buffer read everything. Measured on what the database
// returned (every result recorded), so a scope that always reads everything fails here
// although the assembled answer would be the same.

const rec = useRecordedDatabase();
const { sql, writer } = rec;
const USER = "scope-user";
const TURNS = 40;
const turn = (i: number) =>
  ZTurnInput.parse({ query: `SQ${i}X tell me about topic ${i}`, answer: `SA${i}X here is what I know about topic ${i}`, created_at: new Date(Date.UTC(2025, 0, 1) + i * 60_000).toISOString() });

async function conversation(): Promise<string> {
  const [c] = await rec.db.sql.query<{ id: string }>(`INSERT INTO conversations (id, app_id, end_user_id) VALUES (gen_random_uuid(), 'scope', $1) RETURNING id`, [USER]);
  await insertTurns(writer(), c.id, Array.from({ length: TURNS }, (_, i) => turn(i)));
  return c.id;
}

async function assembled(strategy: Record<string, unknown>) {
  const conversation_id = await conversation();
  const input = ZContextInput.parse({ user_id: USER, conversation_id, query: "what next?", strategy, memory: { enabled: false } });
  rec.resetReads();
  const out = await assembleContext(sql, input, { recordAccess: false });
  const read = rec.readText();
  const sent = JSON.stringify(out.messages);
  return { out, read, sent };
}

describe("/context reads the text its strategy can send", () => {
  it("token_buffer: the newest turns' text only, not the oldest", async () => {
    const { read, sent } = await assembled({ type: "token_buffer", max_token_limit: 200 });
    expect(sent).toMatch(`SA${TURNS - 1}X`);
    expect(sent).not.toMatch(/SQ0X/);
    expect(read).toMatch(`SA${TURNS - 1}X`);
    expect(read).not.toMatch(/S[QA]0X/);
    expect(read).not.toMatch(/S[QA]10X/);
  });

  it("message_window: the newest messages' text only, not the oldest", async () => {
    const { read, sent } = await assembled({ type: "message_window", max_attached_message_count: 4 });
    expect(sent).toMatch(`SQ${TURNS - 1}X`);
    expect(sent).toMatch(`SQ${TURNS - 2}X`);
    expect(read).toMatch(`SQ${TURNS - 2}X`);
    expect(read).not.toMatch(/S[QA]0X/);
    expect(read).not.toMatch(/S[QA]10X/);
  });

  it("summary_buffer and auto_context: every turn's text", async () => {
    for (const strategy of [{ type: "summary_buffer" }, { type: "auto_context" }]) {
      const { read } = await assembled(strategy);
      expect(read, strategy.type).toMatch(/SQ0X/);
      expect(read, strategy.type).toMatch(/SA0X/);
    }
  });
});
