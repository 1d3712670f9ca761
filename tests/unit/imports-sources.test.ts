import fs from "node:fs";
import path from "node:path";
import { unzipSync } from "fflate";
import initSqlJs from "sql.js";
import { describe, expect, it } from "vitest";
import { markdownItems } from "@/lib/imports/markdown-items";
import { parseAgentScope } from "@/lib/imports/parse-agentscope";
import { claudeMemories } from "@/lib/imports/parse-claude";
import { parseImportText } from "@/lib/imports/parse-import";
import { parseMemoryFiles } from "@/lib/imports/parse-memory-dir";
import { langgraphMemories, storeRowsFromDump } from "@/lib/imports/parse-langgraph";
import { parseAgentsSqlite } from "@/lib/imports/parse-openai-agents";
import { stableUuid } from "@/lib/imports/stable-id";
import { zipFolder } from "@/lib/imports/zip-folder";
import { UUID_NIL } from "@/lib/threads/uuid-nil";

// The parsers of the sources added for issue 25, on fixture files written in each format
// (tests/fixtures/imports/*): exact turns, threads, ids, times, memories and problems.

const FIX = path.join(__dirname, "../fixtures/imports");
const read = (p: string) => fs.readFileSync(path.join(FIX, p), "utf8");
const files = (dir: string) => new Map(Object.entries(unzipSync(zipFolder(path.join(FIX, dir)))));

describe("ChatGPT export (conversations.json)", () => {
  const parsed = parseImportText(read("chatgpt/conversations.json"), undefined);
  const [trip, unanswered, same] = parsed.conversations;

  it("is detected; an empty conversation is skipped; the tree becomes a turn tree with branches", () => {
    expect(parsed.format).toBe("chatgpt");
    expect(parsed.problems).toEqual([]);
    expect(parsed.skipped).toBe(1);
    expect(parsed.conversations.map((c) => c.externalId)).toEqual(["c1-67e1", "c2-memories", "c4-dup"]);
    const id = (node: string) => stableUuid(`chatgpt-turn:c1-67e1:${node}`);
    expect(trip.id).toBe(stableUuid("chatgpt-conversation:c1-67e1"));
    expect(trip.name).toBe("Trip to Kyōto 🌸");
    expect(trip.turns.map((t) => [t.id, t.parent_message_id, t.query, t.answer])).toEqual([
      // a regenerated answer: two turns with the same question, siblings
      // roots as Dify's walk reads them right (lib/imports/dify-roots.ts): the oldest turn UUID_NIL, the other the conversation itself
      [id("A1a"), UUID_NIL, "Plan a trip to Kyōto 🌸", "First answer"],
      [id("A1b"), trip.id, "Plan a trip to Kyōto 🌸", "Second answer"],
      // an edited question: two turns under the same parent
      [id("A2"), id("A1b"), "What temple is this?", "Kinkaku-ji.\nIt is the Golden Pavilion."],
      [id("A2e"), id("A1b"), "What temple is this? (edited)", "An edited branch answer"],
    ]);
  });

  it("marks the path from current_node to the root as the active thread, not the newest leaf", () => {
    expect(trip.turns.map((t) => t.metadata?.active)).toEqual([false, true, true, false]);
    expect(trip.model_config).toMatchObject({ current_node: "A2", active_leaf_message_id: stableUuid("chatgpt-turn:c1-67e1:A2"), model: "gpt-4o" });
  });

  it("reads unix float seconds, integer seconds and ISO times", () => {
    expect(trip.created_at).toBe("2023-11-14T22:13:20.123Z");
    expect(trip.updated_at).toBe("2023-11-14T22:21:40.500Z");
    // a turn's time is its answer's: the regenerated answer is the later turn
    expect(trip.turns.map((t) => t.created_at)).toEqual(["2023-11-14T22:13:30.250Z", "2023-11-14T22:13:40.000Z", "2023-11-14T22:15:03.000Z", "2023-11-14T22:18:20.000Z"]);
    expect(unanswered.created_at).toBe("2023-11-16T02:00:00.000Z");
    expect(unanswered.turns[0]).toMatchObject({ query: "Question without an answer yet", answer: "", created_at: "2023-11-06T01:00:00.000Z" });
    expect(same.turns[0].created_at).toBe("2023-11-18T09:33:20.000Z"); // no message time: the conversation's
  });

  it("keeps hidden system and tool nodes out of the text: tool calls go to metadata, image pointers to files", () => {
    const t = trip.turns[2];
    expect(t.metadata?.tool_calls).toEqual([{ id: "A2call", name: "python", arguments: "print(1)", result: "1" }]);
    expect(t.metadata?.node_ids).toEqual(["U2", "A2call", "T2", "A2"]);
    expect(t.files).toEqual([{ type: "image", transfer_method: "local_file", upload_file_id: "file-service://file-Kyoto123", url: null, belongs_to: "user" }]);
  });

  it("turns custom instructions and saved memories into memories, once each across conversations", () => {
    expect(parsed.memories.map((m) => [m.content, m.memory_type, m.structured_data?.kind])).toEqual([
      ["I live in Lyon and travel by train.", "preference", "custom_instructions"],
      ["Answer briefly, in metric units.", "preference", "custom_instructions"],
      ["Prefers window seats.", "fact", "saved_memory"],
      ["Is vegetarian.", "fact", "saved_memory"],
    ]);
  });

  it("gives one problem per bad conversation, naming it and the field; the good one still parses", () => {
    const bad = parseImportText(read("chatgpt/conversations-bad.json"), undefined);
    expect(bad.problems).toEqual([
      { record: "conversations[0]", field: "mapping", message: "missing (the message tree)" },
      { record: "conversations[1]", field: "current_node", message: "names no node of mapping (nope)" },
      { record: "conversations[2]", field: "mapping.X.message.author.role", message: 'must be user, assistant, system or tool, got "robot"' },
      { record: "conversations[3]", field: "create_time", message: "not a valid time" },
      // every defect of a conversation, not only the first (issue 36); a repeated id is one
      { record: "conversations[5]", field: "mapping.r.children[1]", message: "names no node of mapping (Z)" },
      { record: "conversations[5]", field: "mapping.X.message.author.role", message: 'must be user, assistant, system or tool, got "robot"' },
      { record: "conversations[5]", field: "mapping.U.message.create_time", message: "not a valid time" },
      { record: "conversations[6]", field: "id", message: "repeats the id of conversations[4] (c4-dup) with other content" },
    ]);
    expect(bad.conversations.map((c) => c.externalId)).toEqual(["c4-dup"]);
  });
});

describe("a conversation id met twice in one export (issue 36)", () => {
  it("an identical copy is skipped; a copy with other content is a defect naming the first", () => {
    const [conv] = JSON.parse(read("chatgpt-export/conversations.json"));
    const same = parseImportText(JSON.stringify([conv, conv]), "chatgpt");
    expect(same.problems).toEqual([]);
    expect([same.conversations.length, same.skipped]).toEqual([1, 1]);
    const other = parseImportText(JSON.stringify([conv, { ...conv, title: "Renamed" }]), "chatgpt");
    expect(other.problems).toEqual([{ record: "conversations[1]", field: "id", message: "repeats the id of conversations[0] (6863a1b0-0c1e-8000-9a3b-5d1f2e3c4b5a) with other content" }]);
    expect(other.conversations.map((c) => c.name)).toEqual(["Peanut-free baking"]);
  });
});

describe("Claude.ai export", () => {
  const parsed = parseImportText(read("claude/conversations.json"), undefined);
  const [coffee, linear] = parsed.conversations;
  const id = (conv: string, m: string) => stableUuid(`claude-turn:${conv}:${m}`);
  const C = "11111111-1111-4111-8111-111111111111";

  it("follows parent_message_uuid: retried answers and edited questions are siblings; the newest leaf is active", () => {
    expect(parsed.format).toBe("claude");
    expect(parsed.skipped).toBe(1); // the empty conversation
    expect(coffee.turns.map((t) => [t.id, t.parent_message_id, t.query, t.answer, t.metadata?.active])).toEqual([
      [id(C, "a1"), UUID_NIL, "How much coffee is too much?", "About 400 mg a day; five cups is near it.", true],
      [id(C, "a1r"), coffee.id, "How much coffee is too much?", "A retried answer.", false],
      [id(C, "a2"), id(C, "a1"), "And tea?", "Tea has less.", false],
      [id(C, "a2e"), id(C, "a1"), "And green tea?", "Green tea has even less.", true],
    ]);
    expect(coffee.model_config).toMatchObject({ active_leaf_message_id: id(C, "a2e"), active_leaf_rule: "newest message" });
    expect(coffee.end_user_id).toBe("acct-1");
    expect(coffee.created_at).toBe("2026-03-01T10:00:00.000Z");
    expect(coffee.turns.map((t) => t.created_at)).toEqual(["2026-03-01T10:00:05.000Z", "2026-03-01T10:01:00.000Z", "2026-03-01T10:02:05.000Z", "2026-03-01T10:03:05.000Z"]);
  });

  it("keeps tool use with its result, thinking, attachments and files", () => {
    const t = coffee.turns[0];
    expect(t.metadata?.tool_calls).toEqual([{ id: "toolu_1", name: "web_search", arguments: '{"query":"caffeine limit"}', result: "400 mg a day" }]);
    expect(t.metadata?.thinking).toBe("Check the guidance.");
    expect(t.metadata?.attachments).toEqual([{ file_name: "notes.txt", file_type: "txt", file_size: 12, extracted_content: "I drink 5 cups" }]);
    expect(coffee.turns[2].files).toEqual([{ type: "image", transfer_method: "local_file", upload_file_id: "f-1", url: null, belongs_to: "user" }]);
  });

  it("reads an export without parent_message_uuid as one thread in order", () => {
    const L = "22222222-2222-4222-8222-222222222222";
    expect(linear.name).toBe("Old export, no parents");
    expect(linear.turns.map((t) => [t.id, t.parent_message_id, t.query, t.answer])).toEqual([
      [id(L, "o2"), UUID_NIL, "Old export, no parents", "Linear reply"],
      [id(L, "o3"), id(L, "o2"), "Second question", ""],
    ]);
  });

  it("reads memories.json: one memory per item, the section kept", () => {
    const ms = claudeMemories(JSON.parse(read("claude/memories.json")), "memories.json");
    expect(ms.map((m) => [m.user_id, m.content, m.structured_data?.kind, m.structured_data?.section ?? null])).toEqual([
      ["acct-1", "**Work context**", "account_memory", null],
      ["acct-1", "Works as a barista in Lyon.", "account_memory", null],
      ["acct-1", "Prefers oat milk.", "account_memory", null],
      ["acct-1", "**Personal**", "account_memory", null],
      ["acct-1", "Has a cat named Miso.", "account_memory", null],
      ["acct-1", "Writing a coffee guide.", "project_memory", null],
    ]);
  });

  it("names each bad record and field", () => {
    const bad = parseImportText(read("claude/conversations-bad.json"), undefined);
    expect(bad.problems).toEqual([
      { record: "conversations[0]", field: "chat_messages[0].sender", message: 'must be human or assistant, got "bot"' },
      { record: "conversations[1]", field: "chat_messages[0].parent_message_uuid", message: "names no message of this conversation (missing-parent)" },
      { record: "conversations[2]", field: "chat_messages[0].content", message: "must be an array of parts, got string" },
      { record: "conversations[3]", field: "uuid", message: "missing" },
      { record: "conversations[5]", field: "chat_messages[0].sender", message: 'must be human or assistant, got "bot"' },
      { record: "conversations[5]", field: "chat_messages[1].parent_message_uuid", message: "names no message of this conversation (x1)" },
      { record: "conversations[5]", field: "chat_messages[1].content", message: "must be an array of parts, got string" },
      { record: "conversations[6]", field: "uuid", message: "repeats the id of conversations[4] (22222222-2222-4222-8222-222222222222) with other content" },
    ]);
    expect(bad.conversations).toHaveLength(1);
  });
});

describe("Letta agent file", () => {
  it("reads the current schema: a block shared by two agents is one memory; tool calls, returns, approvals, in-context ids", () => {
    const p = parseImportText(read("letta/concierge.af"), undefined);
    expect(p.format).toBe("letta");
    expect(p.problems).toEqual([]);
    expect(p.skipped).toBe(2); // the agent without messages, the empty block
    expect(p.memories.map((m) => [m.content, m.structured_data])).toEqual([
      ["Name: Zoë. Lives in Paris. Vegetarian.", { source: "letta", kind: "letta_core_block", label: "human", limit: 5000, description: "About the user", read_only: false, agents: ["Concierge", "Sleeptime"] }],
      ["I am a helpful concierge.", { source: "letta", kind: "letta_core_block", label: "persona", limit: 5000, description: null, read_only: false, agents: ["Concierge"] }],
    ]);
    const [c] = p.conversations;
    expect(c.name).toBe("Concierge");
    expect(c.turns.map((t) => [t.query, t.answer, t.created_at, t.metadata?.in_context])).toEqual([
      ["Book me a table, s'il vous plaît 🍷", "I found Chez Marie.", "2026-05-01T10:00:02.000Z", true],
      ["Please book it.", "", "2026-05-01T10:01:00.000Z", false],
    ]);
    expect(c.turns[0].metadata?.tool_calls).toEqual([
      { id: "call-1", name: "find_restaurant", arguments: '{"city": "Paris"}', result: "Chez Marie", status: "success" },
      { id: "call-2", name: "send_message", arguments: '{"message": "I found Chez Marie."}', result: null },
    ]);
    expect(c.turns[1].metadata?.tool_calls).toEqual([{ id: "call-3", name: "book_table", arguments: '{"name": "Chez Marie"}', result: null, approval: { approve: false, reason: "Too expensive" } }]);
    expect(c.turns[1].parent_message_id).toBe(c.turns[0].id);
  });

  it("reads the older schema (core_memory, in_context_message_indices)", () => {
    const p = parseImportText(read("letta/old-pal.af"), undefined);
    expect(p.memories.map((m) => [m.content, m.structured_data?.label, m.structured_data?.limit])).toEqual([
      ["Likes chess.", "human", 2000],
      ["Friendly pal.", "persona", 2000],
    ]);
    expect(p.conversations[0].turns.map((t) => [t.query, t.answer, t.created_at, t.metadata?.in_context])).toEqual([["Fancy a game?", "Always.", "2025-02-01T12:01:00.000Z", true]]);
  });

  it("an approved call that ran: its ToolReturn in approvals is the call's result (letta/schemas/message.py ToolReturn)", () => {
    const m = (id: string, role: string, extra: Record<string, unknown>) => ({ id, role, content: null, created_at: "2026-07-01T10:00:00Z", tool_calls: null, approvals: null, ...extra });
    const af = {
      agents: [
        {
          id: "agent-0",
          name: "Booker",
          agent_type: "letta_v1_agent",
          block_ids: [],
          in_context_message_ids: [],
          messages: [
            m("m0", "user", { content: [{ type: "text", text: "Book it" }] }),
            m("m1", "approval", { tool_calls: [{ id: "c1", type: "function", function: { name: "book_table", arguments: "{}" } }] }),
            m("m2", "approval", { approvals: [{ tool_call_id: "c1", status: "success", func_response: "Booked for 8 pm", stdout: null, stderr: null }] }),
            m("m3", "assistant", { content: [{ type: "text", text: "Done: booked." }] }),
          ],
        },
      ],
      blocks: [],
    };
    const p = parseImportText(JSON.stringify(af), "letta");
    expect(p.problems).toEqual([]);
    expect(p.conversations[0].turns.map((t) => [t.query, t.answer, t.metadata?.tool_calls])).toEqual([
      ["Book it", "Done: booked.", [{ id: "c1", name: "book_table", arguments: "{}", result: "Booked for 8 pm", status: "success", approval: { approve: true, reason: null } }]],
    ]);
  });

  it("names each defect of a bad file", () => {
    const p = parseImportText(read("letta/bad.af"), "letta");
    expect(p.problems).toEqual([
      { record: "file blocks[0]", field: "blocks[0].value", message: "is 20 characters, over the block's limit of 10" },
      { record: "file blocks[1]", field: "blocks[1].label", message: "missing" },
      { record: "file blocks[1]", field: "blocks[1].limit", message: 'must be a whole number of characters, got "lots"' },
      { record: "file agents[0]", field: "agents[0].block_ids[0]", message: "names no block of the file (block-9)" },
      { record: "file agents[1]", field: "agents[1].messages[0].role", message: `must be one of Letta's roles (system, user, assistant, tool, function, approval, summary), got "narrator"` },
      { record: "file agents[1]", field: "agents[1].messages[1].content[1].type", message: `must be one of Letta's content parts (text, image, tool_call, tool_return, reasoning, redacted_reasoning, omitted_reasoning, summarized_reasoning), got "video"` },
      { record: "file agents[1]", field: "agents[1].messages[2].tool_call_id", message: "answers no earlier tool call (call-nope)" },
      { record: "file agents[2]", field: "agents[2].in_context_message_ids[0]", message: "names no message of this agent (m-missing)" },
    ]);
    expect(p.conversations.map((c) => c.name)).toEqual(["D"]);
    expect(p.memories.map((m) => m.content)).toEqual(["Likes jazz."]);
  });
});

describe("OpenAI Agents SDK SQLiteSession database", () => {
  it("makes a conversation per session from Responses-API items; an undecodable row is skipped and counted", async () => {
    const SQL = await initSqlJs({ locateFile: (f) => path.join(path.dirname(require.resolve("sql.js")), f) });
    const db = new SQL.Database();
    db.exec(read("openai-agents.sql"));
    const bytes = (db as unknown as { export(): Uint8Array }).export();
    const p = await parseAgentsSqlite(bytes);
    expect(p.problems).toEqual([]);
    expect(p.skipped).toBe(2); // the row that is not JSON, the session without items
    const [c] = p.conversations;
    expect(c.externalId).toBe("user_42");
    expect(c.created_at).toBe("2026-06-01T08:00:00.000Z");
    expect(c.turns.map((t) => [t.query, t.answer, t.created_at])).toEqual([
      ["What is the weather in Tōkyō?", "It is 22°C and clear.", "2026-06-01T08:00:01.000Z"],
      ["Thanks!", "You are welcome.", "2026-06-01T08:01:00.000Z"],
    ]);
    expect(c.turns[0].metadata).toMatchObject({ tool_calls: [{ id: "call_a", name: "get_weather", arguments: '{"city":"Tokyo"}', result: "22°C, clear" }], reasoning: "Need the weather tool.", row_ids: [1, 2, 3, 4, 5] });
    expect(c.turns[1].parent_message_id).toBe(c.turns[0].id);
  });

  it("refuses a file that is not a session database, naming what it lacks", async () => {
    const SQL = await initSqlJs({ locateFile: (f) => path.join(path.dirname(require.resolve("sql.js")), f) });
    const db = new SQL.Database();
    db.exec("CREATE TABLE notes (id INTEGER)");
    await expect(parseAgentsSqlite((db as unknown as { export(): Uint8Array }).export())).rejects.toMatchObject({ code: "invalid_import_file", details: [{ field: "body", message: expect.stringMatching(/session_id and message_data.*notes/) }] });
  });
});

describe("Memory folders (Anthropic memory tool, Claude Code)", () => {
  it("/memories: one memory per list item or per file, a folder per user, temporary and empty files left out", () => {
    const p = parseMemoryFiles(new Map([...files("memories")].map(([k, v]) => [`memories/${k}`, v])));
    expect(p.memories.map((m) => [m.user_id, m.content, m.record])).toEqual([
      ["alice", "Alice's dog is called Pixel.", "/memories/alice/notes.txt"],
      ["alice", "Prefers aisle seats on trains", "/memories/alice/preferences.md:1"],
      ["alice", "Allergic to peanuts\n(confirmed 2026-04)", "/memories/alice/preferences.md:2"],
      ["alice", "Works night shifts", "/memories/alice/preferences.md:7"],
      ["bob", "Learn Go", "/memories/bob/projects.md:1"],
      ["bob", "Lives in Zürich", "/memories/bob/projects.md:2"],
    ]);
    expect(p.memories[3].structured_data).toEqual({ source: "memory-dir", kind: "memory_tool_file", path: "/memories/preferences.md", line: 7, section: "Work" });
    expect(p.skipped).toBe(4); // .swp, draft.md~, empty.md, blank.md
  });

  it("Claude Code: MEMORY.md's index lines are not memories; its topic files are", () => {
    const p = parseMemoryFiles(files("claude-code"), { end_user_id: "dev" });
    expect(p.memories.map((m) => [m.user_id, m.content, m.structured_data?.kind])).toEqual([
      ["dev", "The build needs Node 20", "claude_code_memory"],
      ["dev", "Run npx vitest run with one file", "claude_code_memory"],
      ["dev", "PGlite folders are locked per process", "claude_code_memory"],
    ]);
  });

  it("splits Markdown into items, keeping the section", () => {
    expect(markdownItems("---\ntitle: x\n---\n# A\n- one\n- two\n\npara\ncontinued\n## B\n1. three")).toEqual([
      { text: "one", section: "A", line: 5 },
      { text: "two", section: "A", line: 6 },
      { text: "para\ncontinued", section: "A", line: 8 },
      { text: "three", section: "B", line: 11 },
    ]);
  });
});

describe("AgentScope 2.x workspace", () => {
  it("imports sessions (2.x and the older form) once, however many copies; MEMORY.md and daily notes as memories", () => {
    const p = parseAgentScope(files("agentscope"));
    expect(p.problems).toEqual([]);
    expect(p.conversations.map((c) => c.externalId).sort()).toEqual(["session:old", "session:s1"]);
    const s1 = p.conversations.find((c) => c.externalId === "session:s1")!;
    expect(s1.turns).toHaveLength(1);
    expect(s1.turns[0]).toMatchObject({ query: "天気はどう？ Weather in Osaka?", answer: "Sunny and 14°C.", created_at: "2026-11-20T09:00:01.000Z" });
    expect(s1.turns[0].metadata).toMatchObject({ tool_calls: [{ id: "tc1", name: "get_weather", arguments: '{"city": "Osaka"}', result: "Sunny, 14°C" }], thinking: "Use the tool." });
    expect(s1.model_config).toMatchObject({ system_messages: ["You are Friday."], agent: "Friday" });
    const old = p.conversations.find((c) => c.externalId === "session:old")!;
    expect(old.turns.map((t) => [t.query, t.answer, t.created_at])).toEqual([["Remind me what we said", "You said hello.", "2025-06-01T08:00:00.123Z"]]);
    expect(old.turns[0].metadata?.tool_calls).toEqual([{ id: "tu1", name: "recall", arguments: '{"q":"last"}', result: "You said hello" }]);
    expect(p.memories.map((m) => [m.content, m.structured_data?.kind, m.created_at ?? null])).toEqual([
      ["The user's name is Kenji", "memory_md", null],
      ["Met with Aiko about the Osaka trip", "daily_note", "2026-11-20T00:00:00.000Z"],
      ["Booked the 9:00 Shinkansen", "daily_note", "2026-11-20T00:00:00.000Z"],
    ]);
    expect(p.skipped).toBe(1); // the identical copy
  });
});

describe("LangGraph store (SQL dump of the store table)", () => {
  it("a memory per row: LangMem values, namespaces to users, rows past their TTL left out, a bad value named", () => {
    const { rows, problems } = storeRowsFromDump(read("langgraph-store.sql"));
    expect(problems).toEqual([]);
    const p = langgraphMemories(rows, { now: new Date("2026-11-26T00:00:00Z") });
    expect(p.memories.map((m) => [m.user_id, m.content, m.structured_data?.kind, m.created_at])).toEqual([
      ["user-1", "Prefers tea over coffee ☕", "content", "2026-01-01T10:00:00.000Z"],
      ["user-1", "Lives in Porto", "Memory", "2026-01-02T09:30:00.500Z"],
      ["user-2", '{"name":"Ana","language":"pt"}', "UserProfile", "2026-01-04T08:00:00.000Z"],
    ]);
    expect(p.skipped).toBe(1);
    expect(p.problems).toEqual([{ record: "line 25 (memories.user-3/bad)", field: "value", message: "must be a JSON object, got array" }]);
    // The namespace segment naming the user is configurable.
    expect(langgraphMemories(rows, { user_segment: 0, now: new Date("2026-11-26T00:00:00Z") }).memories[0].user_id).toBe("memories");
  });

  it("says when a dump has no store COPY block", () => {
    expect(storeRowsFromDump("-- nothing here\n").problems).toEqual([{ record: "file", message: "no COPY block and no INSERT INTO of the store table (pg_dump's default, --inserts or --column-inserts)" }]);
  });
});
