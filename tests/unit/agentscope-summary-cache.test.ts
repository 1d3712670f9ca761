import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, type Database } from "@/lib/db/open-database";
import { projectSql } from "@/lib/db/project-sql";
import { storedSummaryCache } from "@/lib/strategies/agentscope/summary-cache";
import { applyStrategy } from "@/lib/strategies/apply-strategy";
import { ZAutoContextStrategy, type RoleMessage } from "@/lib/strategies/schemas";
import { startOpenAiStub, type OpenAiStub } from "../helpers/openai-stub";
import { removeDir } from "../helpers/temp-dir";
import { freshDataDir } from "../helpers/fresh-data-dir";

// auto_context's model summaries are kept in the database per (project, conversation,
// step, hash of what was sent): a replay run again with a new cache object (what a page
// reload, a restart or a second instance has) makes no model call. Real PGlite database,
// the chat model a local stub that counts its calls.

const u = (content: string): RoleMessage => ({ role: "user", content });
const a = (content: string): RoleMessage => ({ role: "assistant", content });
const call = (id: string): RoleMessage => ({ role: "assistant", content: "", tool_calls: [{ id, name: "read_file", arguments: '{"path":"/srv/app.conf"}' }] });
const tool = (id: string): RoleMessage => ({ role: "tool", tool_call_id: id, content: `result of ${id}: ${"log line ".repeat(20)}` });
/** Three rounds of eight tool messages each: strategy 1 summarizes old runs during the replay. */
const history: RoleMessage[] = [0, 1, 2].flatMap((r) => [u(`q${r}`), ...[0, 1, 2, 3].flatMap((k) => [call(`c${r}${k}`), tool(`c${r}${k}`)]), a(`a${r}`)]);
const strategy = ZAutoContextStrategy.parse({ type: "auto_context", msg_threshold: 1, last_keep: 2, min_compression_token_threshold: 10 });

let dir: string;
let db: Database;
let stub: OpenAiStub;
let written = 0;
const chatCalls = () => stub.requests.filter((r) => r.path === "/v1/chat/completions").length;

beforeAll(async () => {
  dir = await freshDataDir(); // a copy of a migrated folder: no initdb here
  db = await openDatabase({ kind: "pglite", dataDir: dir });
  stub = await startOpenAiStub({ chat: () => `SUMMARY ${++written}` });
  process.env.MEMSCOPE_CHAT_BASE_URL = stub.url;
  process.env.MEMSCOPE_CHAT_MODEL = "stub-chat";
}, 120_000);
afterAll(async () => {
  delete process.env.MEMSCOPE_CHAT_BASE_URL;
  delete process.env.MEMSCOPE_CHAT_MODEL;
  await stub?.stop();
  await db?.close();
  if (dir) removeDir(dir);
});

/** One replay of `history` as conversation `conversationId` of `project`, with a new cache object (nothing carried in process). */
async function replay(project: string, conversationId: string | null, messages = history) {
  const sql = projectSql(db.sql, project);
  const before = chatCalls();
  const r = await applyStrategy(messages, strategy, { autoContext: { replay: { next: u("and now?"), conversationId }, summaryCache: storedSummaryCache(sql) } });
  // Offload uuids are new on every run.
  const texts = r.messages.map((m) => JSON.stringify(m.content).replace(/uuid=[0-9a-f-]{36}/g, "uuid=*"));
  return { calls: chatCalls() - before, report: r.auto_context!, texts };
}

describe("auto_context summaries stored per project, conversation and step", () => {
  const c1 = "11111111-1111-4111-8111-111111111111";
  const c2 = "22222222-2222-4222-8222-222222222222";
  let first: Awaited<ReturnType<typeof replay>>;

  it("the first replay asks the model once per summary and stores each", async () => {
    first = await replay("p1", c1);
    expect(first.calls).toBeGreaterThan(1);
    expect(first.report).toMatchObject({ summaries: "model", model_calls: first.calls, cached_summaries: 0 });
    const [{ n }] = await db.sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM agentscope_summaries WHERE project_id = 'p1' AND conversation_id = $1`, [c1]);
    expect(n).toBe(first.calls);
  });

  it("the same replay again (a reload, a restart: a new cache object) makes no model call and sends the same prompt", async () => {
    const again = await replay("p1", c1);
    expect(again.calls).toBe(0);
    expect(again.report).toMatchObject({ model_calls: 0, cached_summaries: first.calls });
    expect(again.texts).toEqual(first.texts);
  });

  it("another project does not see them; another conversation has its own", async () => {
    expect((await replay("p2", c1)).calls).toBe(first.calls);
    expect((await replay("p1", c2)).calls).toBe(first.calls);
    expect((await replay("p1", null)).calls).toBe(first.calls);
    expect((await replay("p1", null)).calls).toBe(0);
  });

  it("a changed prompt (a tool result of the last round changed) is asked again; what came before it is not", async () => {
    const changed = history.map((m) => (m.role === "tool" && m.tool_call_id === "c23" ? { ...m, content: "a different result" } : m));
    const other = await replay("p1", c1, changed);
    expect(other.calls).toBeGreaterThan(0);
    expect(other.calls).toBeLessThan(first.calls);
    expect(other.report.cached_summaries).toBe(first.calls - other.calls);
  });

  it("a uuid in a message's own text is part of the key: only the offload tags' uuids are left out", async () => {
    const c3 = "33333333-3333-4333-8333-333333333333";
    const withId = (id: string) => history.map((m) => (m.role === "tool" && m.tool_call_id === "c00" ? { ...m, content: `row uuid=${id} deleted` } : m));
    expect((await replay("p1", c3, withId("aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa"))).calls).toBe(first.calls);
    expect((await replay("p1", c3, withId("aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa"))).calls).toBe(0);
    expect((await replay("p1", c3, withId("bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb"))).calls).toBeGreaterThan(0);
  });
});
