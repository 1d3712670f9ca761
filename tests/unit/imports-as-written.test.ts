import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
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
