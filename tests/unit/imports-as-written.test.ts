import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { zipSync } from "fflate";
import initSqlJs from "sql.js";
import { describe, expect, it } from "vitest";
import { getJob } from "@/lib/imports/import-jobs";
import { parseAgentsSqlite } from "@/lib/imports/parse-openai-agents";
import { startUpload } from "@/lib/imports/start-upload";
import type { ImportJob } from "@/lib/imports/schemas";
import { parseImportText } from "@/lib/imports/parse-import";
import { ImportRun } from "@/lib/imports/run-import";
import type { ParsedImport } from "@/lib/imports/types";
import { ZHistoryQuery } from "@/lib/messages/schemas";
import { getHistory } from "@/lib/window/get-history";
import { useRecordedDatabase } from "../helpers/recorded-database";

// Issue 36: files laid out as each system's own code writes them (each fixture's README or
// _note names the repository, file and commit followed), imported through the import runner
// into the real (embedded) database: what each writes, that a re-run imports nothing new,
// that a dry run's counts equal the run's, and that a defective file names every defect,
// leaves its defective records out whole and imports the good ones.

const FIX = path.join(__dirname, "../fixtures/imports");
const read = (p: string) => fs.readFileSync(path.join(FIX, p), "utf8");
const rec = useRecordedDatabase();

/** A dry run, the run, and a re-run of one parsed file: each run's counts and what it kept aside. */
async function runThrice(parse: () => ParsedImport | Promise<ParsedImport>) {
  const dry = new ImportRun(rec.writer(), { dryRun: true });
  await dry.add(await parse());
  const run = new ImportRun(rec.writer(), { dryRun: false });
  await run.add(await parse());
  const again = new ImportRun(rec.writer(), { dryRun: false });
  await again.add(await parse());
  return { dry, run, again };
}

type TurnRow = { conversation_id: string; query: string; answer: string; metadata: Record<string, unknown> | null; file_count: number; created_at: Date };
async function turnsOf(name: string): Promise<TurnRow[]> {
  return rec.writer().query<TurnRow>(
    `SELECT m.conversation_id, m.query, m.answer, m.metadata, m.file_count, m.created_at FROM messages m JOIN conversations c ON c.id = m.conversation_id AND c.project_id = m.project_id
      WHERE c.name = $1 ORDER BY m.created_at, m.seq`,
    [name],
  );
}

describe("Letta .af as Letta writes it (letta-ai/letta 56ba9c2)", () => {
  it("every role and part: summary, system alert, reasoning, a denied approval, an image, tool calls with results; the sleeptime agent's runs as turns; re-run and dry run agree", async () => {
    const { dry, run, again } = await runThrice(() => parseImportText(read("letta/scout.af"), undefined));
    expect(run.counts).toMatchObject({ conversations: 2, turns: 5, memories: 3, failed: 0 });
    expect(run.problems).toEqual([]);
    expect(dry.counts).toEqual(run.counts);
    expect(again.counts).toMatchObject({ conversations: 0, turns: 0, memories: 0, skipped: 5 });
    // Nothing lost silently: what lives only in metadata, by reason.
    expect(run.unrepresented).toEqual({ letta_event: 2, letta_image_data: 1, letta_reasoning: 5, letta_summary: 1, letta_hidden_reasoning: 1 });
    expect(dry.unrepresented).toEqual(run.unrepresented);

    const scout = await turnsOf("Scout");
    expect(scout.map((t) => [t.query, t.answer])).toEqual([
      ["Find me a vegetarian place near this street", "Green Leaf (12 Rue Oberkampf) is fully vegetarian."],
      ["Book it for 8 pm", "Understood, I did not book it."],
      // the system alert that set the agent going is the turn's question, marked as such
      ["The user has been idle for 2 hours. Check in about the booking.", "Shall I book Green Leaf for tomorrow instead?"],
    ]);
    const [first, second, third] = scout.map((t) => t.metadata!);
    expect(scout[0].file_count).toBe(1);
    expect(first.tool_calls).toEqual([
      { id: "toolu_01", name: "find_restaurant", arguments: '{"street": "Rue Oberkampf", "diet": "vegetarian"}', result: "Green Leaf, 12 Rue Oberkampf", status: "success" },
      { id: "toolu_02", name: "send_message", arguments: '{"message": "Green Leaf (12 Rue Oberkampf) is fully vegetarian."}', result: "None", status: "success" },
    ]);
    expect(first.reasoning).toBe("The photo shows Rue Oberkampf; search there.\n\nFound one; tell the user.");
    expect(first.images).toEqual([{ message_id: "message-2", source: "base64", media_type: "image/png", sha256: expect.stringMatching(/^[0-9a-f]{64}$/), base64_chars: 96 }]);
    expect(first.events).toEqual([expect.objectContaining({ message_id: "message-1", type: "login" })]);
    expect(second.summaries).toEqual([
      expect.objectContaining({ message_id: "message-7", text: expect.stringContaining("Scout suggested Green Leaf."), compaction_stats: expect.objectContaining({ trigger: "context_window_exceeded" }) }),
    ]);
    expect(second.tool_calls).toContainEqual({ id: "toolu_03", name: "book_table", arguments: '{"name": "Green Leaf", "time": "20:00"}', result: null, approval: { approve: false, reason: "Too late tonight, not now" } });
    expect(second.hidden_reasoning).toBe(1);
    expect(third.trigger).toEqual({ type: "system_alert", message_id: "message-13" });
    expect(third.events).toEqual([expect.objectContaining({ message_id: "message-15", type: "heartbeat" })]);

    // The sleeptime agent: one turn per run, its tool calls as tool calls, its reply the answer.
    const sleep = await turnsOf("Scout-sleeptime");
    expect(sleep.map((t) => [t.query.startsWith("<system-reminder>"), t.answer, (t.metadata!.tool_calls as { name: string; result: string }[]).map((c) => [c.name, c.result])])).toEqual([
      [true, "Recorded that the user is vegetarian.", [["memory_insert", "The core memory block with label `human` has been edited."]]],
      [true, "Noted the declined booking.", [["memory_replace", "The core memory block with label `human` has been edited."]]],
    ]);
    const history = await getHistory(rec.writer(), sleep[0].conversation_id, ZHistoryQuery.parse({}));
    expect(history.messages!.map((m) => [m.role, typeof m.content === "string" ? m.content.slice(0, 17) : m.content])).toEqual([
      ["user", "<system-reminder>"],
      ["assistant", "Recorded that the"],
      ["user", "<system-reminder>"],
      ["assistant", "Noted the decline"],
    ]);
  });

  it("a defective file: every defect named (record, field, reason), defective agents and blocks left out whole, the good ones imported", async () => {
    const { dry, run } = await runThrice(() => parseImportText(read("letta/bad.af"), "letta"));
    const expected = [
      { record: "file blocks[0]", field: "blocks[0].value", message: "is 20 characters, over the block's limit of 10" },
      { record: "file blocks[1]", field: "blocks[1].label", message: "missing" },
      { record: "file blocks[1]", field: "blocks[1].limit", message: 'must be a whole number of characters, got "lots"' },
      { record: "file agents[0]", field: "agents[0].block_ids[0]", message: "names no block of the file (block-9)" },
      { record: "file agents[1]", field: "agents[1].messages[0].role", message: `must be one of Letta's roles (system, user, assistant, tool, function, approval, summary), got "narrator"` },
      { record: "file agents[1]", field: "agents[1].messages[1].content[1].type", message: `must be one of Letta's content parts (text, image, tool_call, tool_return, reasoning, redacted_reasoning, omitted_reasoning, summarized_reasoning), got "video"` },
      { record: "file agents[1]", field: "agents[1].messages[2].tool_call_id", message: "answers no earlier tool call (call-nope)" },
      { record: "file agents[2]", field: "agents[2].in_context_message_ids[0]", message: "names no message of this agent (m-missing)" },
    ];
    expect(dry.problems).toEqual(expected);
    expect(run.problems).toEqual(expected);
    // 2 blocks and 3 agents left out, each counted once; agent D and block-2 imported.
    expect(run.counts).toMatchObject({ conversations: 1, turns: 1, memories: 1, failed: 5 });
    expect(dry.counts).toEqual(run.counts);
    expect((await turnsOf("D")).map((t) => [t.query, t.answer])).toEqual([["Play some jazz?", "Here is Kind of Blue."]]);
    for (const name of ["A", "B", "C"]) expect(await turnsOf(name)).toEqual([]);
    const mems = await rec.writer().query<{ content: string }>(`SELECT content FROM memories WHERE structured_data->>'kind' = 'letta_core_block' AND content IN ('Likes jazz.', 'xxxxxxxxxxxxxxxxxxxx', 'no label')`);
    expect(mems.map((m) => m.content)).toEqual(["Likes jazz."]);
  });
});

/** The export folder zipped as ChatGPT ships it, uploaded through the job the route starts; the finished job. */
async function uploadChatGptZip(dryRun: boolean): Promise<ImportJob> {
  const dir = path.join(FIX, "chatgpt-export");
  const zip = zipSync(Object.fromEntries(fs.readdirSync(dir).filter((f) => f !== "README.md").map((f) => [f, new Uint8Array(fs.readFileSync(path.join(dir, f)))])));
  const file = path.join(os.tmpdir(), `i36-chatgpt-${process.pid}-${Date.now()}.zip`);
  fs.writeFileSync(file, zip);
  const sql = rec.writer();
  let job = await startUpload(sql, "test", file, { dry_run: dryRun });
  for (let i = 0; i < 600 && (job.status === "running" || job.status === "pending"); i++) {
    await new Promise((r) => setTimeout(r, 50));
    job = await getJob(sql, job.id);
  }
  return job;
}

describe("ChatGPT export as ChatGPT ships it (convoviz's specification)", () => {
  it("user.json names the owner; the bio tool's memory, custom instructions without ChatGPT's wrapper; a browsing result's text and a citation kept; dry run, run and re-run agree", async () => {
    const dry = await uploadChatGptZip(true);
    const run = await uploadChatGptZip(false);
    const again = await uploadChatGptZip(false);
    expect(run).toMatchObject({ format: "chatgpt", status: "done", problems: [], counts: { conversations: 1, turns: 2, memories: 3, skipped: 0, failed: 0 }, unrepresented: { chatgpt_citation: 1 } });
    expect(dry.counts).toEqual(run.counts);
    expect(dry.unrepresented).toEqual(run.unrepresented);
    expect(again.counts).toMatchObject({ conversations: 0, turns: 0, memories: 0, skipped: 4 });

    const owner = "user-Zq8x3Lw0Pn2Kd7Yt";
    const mems = await rec.writer().query<{ user_id: string; content: string; kind: string; created_at: Date }>(
      `SELECT user_id, content, structured_data->>'kind' AS kind, created_at FROM memories WHERE structured_data->>'source' = 'chatgpt' AND user_id = $1 ORDER BY content`,
      [owner],
    );
    expect(mems.map((m) => [m.content, m.kind])).toEqual([
      ["Answer in French when I write in French.", "custom_instructions"],
      ["I live in Lyon and bake on weekends.", "custom_instructions"],
      ["User is allergic to peanuts.", "bio"],
    ]);
    expect(mems[2].created_at.toISOString()).toBe("2025-07-01T09:00:02.000Z");
    const [conv] = await rec.writer().query<{ id: string; end_user_id: string }>(`SELECT id, end_user_id FROM conversations WHERE name = 'Peanut-free baking'`);
    expect(conv.end_user_id).toBe(owner);
    const turns = await turnsOf("Peanut-free baking");
    expect(turns.map((t) => [t.query, t.answer])).toEqual([
      ["Remember that I'm allergic to peanuts.", "Got it: I'll keep in mind that you're allergic to peanuts."],
      ["Find a peanut-free bakery in Lyon", "Boulangerie Sans Noix in the 7th has no nuts on the premises【0†source】."],
    ]);
    expect(turns[0].metadata!.tool_calls).toEqual([{ id: "A1bio", name: "bio", arguments: "User is allergic to peanuts.", result: "Model set context updated." }]);
    expect(turns[1].metadata!.tool_calls).toEqual([
      { id: "A2search", name: "browser", arguments: 'search("peanut-free bakery Lyon")', result: "# 【0†Boulangerie Sans Noix†example.com】\nA bakery in Lyon's 7th arrondissement with no nuts on the premises." },
    ]);
    expect(turns[1].metadata!.citations).toEqual([{ node_id: "A2", citations: [expect.objectContaining({ start_ix: 70, end_ix: 80, metadata: expect.objectContaining({ url: "https://example.com/sans-noix" }) })] }]);
  });
});

describe("bad files: every defect named, defective records left out whole, good ones imported", () => {
  it("ChatGPT: a conversation with three defects names all three; a repeated conversation id is a defect", async () => {
    const { dry, run } = await runThrice(() => parseImportText(read("chatgpt/conversations-bad.json"), undefined));
    const expected = [
      { record: "conversations[0]", field: "mapping", message: "missing (the message tree)" },
      { record: "conversations[1]", field: "current_node", message: "names no node of mapping (nope)" },
      { record: "conversations[2]", field: "mapping.X.message.author.role", message: 'must be user, assistant, system or tool, got "robot"' },
      { record: "conversations[3]", field: "create_time", message: "not a valid time" },
      { record: "conversations[5]", field: "mapping.r.children[1]", message: "names no node of mapping (Z)" },
      { record: "conversations[5]", field: "mapping.X.message.author.role", message: 'must be user, assistant, system or tool, got "robot"' },
      { record: "conversations[5]", field: "mapping.U.message.create_time", message: "not a valid time" },
      { record: "conversations[6]", field: "id", message: "repeats the id of conversations[4] (c4-dup) with other content" },
    ];
    expect(dry.problems).toEqual(expected);
    expect(run.problems).toEqual(expected);
    expect(run.counts).toMatchObject({ conversations: 1, failed: 6 });
    expect(dry.counts).toEqual(run.counts);
    const names = await rec.writer().query<{ name: string }>(`SELECT c.name FROM conversations c JOIN import_external_ids x ON x.local_id = c.id AND x.project_id = c.project_id WHERE x.source = 'chatgpt' AND x.external_id LIKE 'bad-%' OR c.name = 'Same id again'`);
    expect(names).toEqual([]);
  });

  it("Claude: a conversation with a repeated uuid is a defect; every defect of a conversation named", async () => {
    const { dry, run } = await runThrice(() => parseImportText(read("claude/conversations-bad.json"), undefined));
    const expected = [
      { record: "conversations[0]", field: "chat_messages[0].sender", message: 'must be human or assistant, got "bot"' },
      { record: "conversations[1]", field: "chat_messages[0].parent_message_uuid", message: "names no message of this conversation (missing-parent)" },
      { record: "conversations[2]", field: "chat_messages[0].content", message: "must be an array of parts, got string" },
      { record: "conversations[3]", field: "uuid", message: "missing" },
      { record: "conversations[5]", field: "chat_messages[0].sender", message: 'must be human or assistant, got "bot"' },
      { record: "conversations[5]", field: "chat_messages[1].parent_message_uuid", message: "names no message of this conversation (x1)" },
      { record: "conversations[5]", field: "chat_messages[1].content", message: "must be an array of parts, got string" },
      { record: "conversations[6]", field: "uuid", message: "repeats the id of conversations[4] (22222222-2222-4222-8222-222222222222) with other content" },
    ];
    expect(dry.problems).toEqual(expected);
    expect(run.problems).toEqual(expected);
    expect(run.counts).toMatchObject({ conversations: 1, turns: 2, failed: 6 });
    expect(dry.counts).toEqual(run.counts);
    expect(await rec.writer().query(`SELECT id FROM conversations WHERE name = 'Same uuid again'`)).toEqual([]);
  });

  it("OpenAI Agents: input images become files (inline bytes as digests, counted); items of a missing session are a named defect, the session left out", async () => {
    const SQL = await initSqlJs({ locateFile: (f) => path.join(path.dirname(require.resolve("sql.js")), f) });
    const db = new SQL.Database();
    db.exec(read("openai-agents-images.sql"));
    const bytes = (db as unknown as { export(): Uint8Array }).export();
    const { dry, run, again } = await runThrice(() => parseAgentsSqlite(bytes));
    const expected = [{ record: "session ghost", field: "session_id", message: "names no row of agent_sessions: 2 items (rows 5, 6) reference a missing session" }];
    expect(run.problems).toEqual(expected);
    expect(dry.problems).toEqual(expected);
    expect(run.counts).toMatchObject({ conversations: 1, turns: 1, failed: 1 });
    expect(dry.counts).toEqual(run.counts);
    expect(run.unrepresented).toEqual({ openai_agents_image_data: 1, openai_agents_tool_output_file: 1 });
    expect(again.counts).toMatchObject({ conversations: 0, turns: 0, skipped: 1 });
    const [t] = await turnsOf("Session vision");
    expect([t.query, t.answer, t.file_count]).toEqual(["Which of these is ripe?", "The yellow one on the left is ripe.", 3]);
    const files = await rec.writer().query<{ transfer_method: string; url: string | null; upload_file_id: string | null }>(
      `SELECT f.transfer_method, f.url, f.upload_file_id FROM message_files f JOIN messages m ON m.id = f.message_id AND m.project_id = f.project_id JOIN conversations c ON c.id = m.conversation_id AND c.project_id = m.project_id WHERE c.name = 'Session vision' ORDER BY f.position`,
    );
    expect(files.map((f) => [f.transfer_method, f.url ?? f.upload_file_id?.replace(/^sha256:[0-9a-f]{64}$/, "sha256:…")]).sort()).toEqual([
      ["local_file", "file-7QhXr2"],
      ["local_file", "sha256:…"],
      ["remote_url", "https://example.com/bananas.jpg"],
    ]);
    expect(t.metadata!.inline_files).toEqual([
      expect.objectContaining({ row_id: 1, type: "input_image", media_type: "image/png", sha256: expect.stringMatching(/^[0-9a-f]{64}$/) }),
      expect.objectContaining({ row_id: 3, type: "function_call_output input_image", url: "https://example.com/bananas-crop.jpg" }),
    ]);
    expect(await turnsOf("Session ghost")).toEqual([]);
  });
});
