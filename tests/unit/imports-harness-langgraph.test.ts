import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { unzipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { parseAgentScope } from "@/lib/imports/parse-agentscope";
import { langgraphMemories, storeRowsFromDump } from "@/lib/imports/parse-langgraph";
import { parseMemoryFiles } from "@/lib/imports/parse-memory-dir";
import { detectUpload } from "@/lib/imports/start-upload";
import { zipFolder } from "@/lib/imports/zip-folder";

// Issue 36 (part B): the parsers on files written by the source systems' own code (the
// harness's Java classes, pg_dump on a table made by LangGraph's migrations). The writing
// through the database: tests/api/imports-as-written.test.ts.

const FIX = path.join(__dirname, "../fixtures/imports");

describe("agentscope-java harness workspace", () => {
  const parsed = parseAgentScope(new Map(Object.entries(unzipSync(zipFolder(path.join(FIX, "agentscope-harness"))))));
  const bySeat = new Map(parsed.conversations.map((c) => [c.record, c]));

  it("a conversation per namespace, agent and session (the .log.jsonl copy adds nothing); the namespace is the owner", () => {
    expect(parsed.problems).toEqual([]);
    expect([...bySeat.keys()].sort()).toEqual(["session alice/concierge/s-second", "session alice/concierge/s-trip", "session bob/coder/s-bob", "session carol/concierge/s-old", "session ops/s-root"]);
    expect([...bySeat.values()].map((c) => [c.record, c.end_user_id, c.turns.length])).toEqual(
      expect.arrayContaining([
        ["session alice/concierge/s-trip", "alice", 4],
        ["session ops/s-root", null, 1],
        ["session carol/concierge/s-old", "carol", 1],
      ]),
    );
    expect(bySeat.get("session alice/concierge/s-second")!.model_config).toMatchObject({ system_messages: ["You are a travel concierge."], agent: "concierge", namespace: "alice" });
  });

  it("reads Jackson's decimal epoch seconds; keeps compaction summaries; counts what it cannot represent", () => {
    const trip = bySeat.get("session alice/concierge/s-trip")!;
    expect(trip.turns[0]).toMatchObject({ query: "Plan a weekend in Lisbon", created_at: "2026-11-20T09:00:36.250Z" });
    expect(trip.model_config!.compaction_summaries).toEqual([expect.objectContaining({ summary: "Alice plans a Lisbon weekend; Alfama Rooms chosen.", parent_id: "m6" })]);
    const trains = (trip.turns[2].metadata!.tool_calls as Record<string, unknown>[])[1];
    expect(trains).toMatchObject({ name: "trains", truncated: true, original_size: 542, result_block_types: ["text", "image"] });
    expect(parsed.unrepresented).toEqual({ agentscope_image: 1, agentscope_compaction_summary: 1, agentscope_tool_result_image: 1 });
  });

  it("memories per namespace; daily notes timed by their flush heading; the root's to end_user_id", () => {
    const users = parsed.memories.map((m) => m.user_id);
    expect(users.filter((u) => u === "alice")).toHaveLength(7);
    expect(users.filter((u) => u === "bob")).toHaveLength(1);
    expect(parsed.memories.find((m) => m.content === "Alice is vegetarian" && m.record.startsWith("alice/memory/"))!.created_at).toBe("2026-11-21T08:00:00.000Z");
    const rooted = parseAgentScope(new Map([["MEMORY.md", new TextEncoder().encode("- Shared fact\n")]]), { end_user_id: "team" });
    expect(rooted.memories.map((m) => m.user_id)).toEqual(["team"]);
  });
});

describe("LangGraph dumps by pg_dump", () => {
  const forms = ["copy", "inserts", "column-inserts"].map((f) => storeRowsFromDump(fs.readFileSync(path.join(FIX, `langgraph/${f}.sql`), "utf8")));

  it("COPY, --inserts and --column-inserts give the same rows", () => {
    const view = (d: (typeof forms)[number]) => d.rows.map((r) => [r.prefix, r.key, r.value, r.created_at, r.updated_at, r.expires_at]);
    expect(forms.map((f) => f.problems)).toEqual([[], [], []]);
    expect(view(forms[1])).toEqual(view(forms[0]));
    expect(view(forms[2])).toEqual(view(forms[0]));
    expect(forms[0].rows).toHaveLength(5);
  });

  it("a row with a kind and no content is a defect naming value.content; the user is the namespace part asked for", () => {
    const p = langgraphMemories(forms[1].rows, { user_segment: 1, now: new Date("2026-11-29T00:00:00Z") }, forms[1].problems);
    expect(p.problems).toEqual([{ record: "line 47 (memories.carol.legacy/k-empty)", field: "value.content", message: expect.stringContaining("no content") }]);
    expect(p.memories.map((m) => m.user_id)).toEqual(["alice", "alice", "bob"]);
    expect(langgraphMemories(forms[1].rows, {}).memories.map((m) => m.user_id)).toEqual(["alice", "user_profile", "profile"]);
  });

  it("a multi-row INSERT (--rows-per-insert) and a broken one", () => {
    const sql = "CREATE TABLE public.store (\n    prefix text NOT NULL,\n    key text NOT NULL,\n    value jsonb NOT NULL\n);\nINSERT INTO public.store VALUES ('m.a', 'k1', '{\"content\": \"it''s one\"}'),\n\t('m.b', 'k2', '{\"content\": \"two\"}');\nINSERT INTO public.store VALUES ('m.c', 'k3', oops);\n";
    const d = storeRowsFromDump(sql);
    expect(d.rows.map((r) => [r.prefix, r.key, r.value, r.record])).toEqual([
      ["m.a", "k1", '{"content": "it\'s one"}', "line 6 (m.a/k1)"],
      ["m.b", "k2", '{"content": "two"}', "line 7 (m.b/k2)"],
    ]);
    expect(d.problems).toEqual([{ record: "line 8", message: 'an INSERT value that is not a literal: "oops);\\n"' }]);
  });

  it("a SQL file is detected as langgraph, never as a memory file", () => {
    for (const f of ["copy", "inserts", "column-inserts"]) expect(detectUpload("text", fs.readFileSync(path.join(FIX, `langgraph/${f}.sql`)), "")).toBe("langgraph");
    expect(detectUpload("text", Buffer.from("-- my store\nINSERT INTO store VALUES ('a', 'b', '{}');\n"), "")).toBe("langgraph");
    expect(detectUpload("text", Buffer.from("# Memory\n- Likes tea\n"), "")).toBe("memory-dir");
  });
});

describe("Anthropic memory tool folders", () => {
  it("<user>/memories/... (BetaLocalFilesystemMemoryTool's base folder per user): paths relative to the memory root", () => {
    const enc = (s: string) => new TextEncoder().encode(s);
    const p = parseMemoryFiles(new Map([["alice/memories/travel/packing.md", enc("- Pack light\n")], ["alice/memories/notes.txt", new Uint8Array([0x63, 0x61, 0x66, 0xe9])]]));
    expect(p.memories.map((m) => [m.user_id, m.content, m.structured_data?.path, m.structured_data?.encoding ?? null])).toEqual([
      ["alice", "café", "/memories/notes.txt", "windows-1252"],
      ["alice", "Pack light", "/memories/travel/packing.md", null],
    ]);
    expect(p.unrepresented).toEqual({ memory_dir_latin1_decoded: 1 });
  });
});

describe("Anthropic memory tool folders, written by the SDK's own tool", () => {
  // @anthropic-ai/sdk's BetaLocalFilesystemMemoryTool (the Node implementation of the memory
  // tool) writes the files, one base folder per user, as an agent's tool calls would.
  it("imports each user's files with the paths the model used (/memories/...), and a re-zip of the export's layout reads the same", async () => {
    const { BetaLocalFilesystemMemoryTool } = await import("@anthropic-ai/sdk/tools/memory/node");
    const base = fs.mkdtempSync(path.join(os.tmpdir(), "memory-tool-"));
    try {
      const alice = await BetaLocalFilesystemMemoryTool.init(path.join(base, "alice"));
      await alice.create({ command: "create", path: "/memories/travel/packing.md", file_text: "- Pack light\n- Bring a plug adapter\n" });
      await alice.create({ command: "create", path: "/memories/profile.md", file_text: "Vegetarian since 2019\n" });
      await alice.str_replace({ command: "str_replace", path: "/memories/profile.md", old_str: "Vegetarian since 2019", new_str: "Vegan since 2024" });
      const bob = await BetaLocalFilesystemMemoryTool.init(path.join(base, "bob"));
      await bob.create({ command: "create", path: "/memories/work/stack.md", file_text: "- Uses PostgreSQL 15\n" });

      const files = new Map(Object.entries(unzipSync(zipFolder(base))));
      const p = parseMemoryFiles(files);
      const rows = p.memories.map((m) => [m.user_id, m.structured_data?.path, m.content]).sort((a, b) => String(a).localeCompare(String(b)));
      expect(rows).toEqual([
        ["alice", "/memories/profile.md", "Vegan since 2024"],
        ["alice", "/memories/travel/packing.md", "Bring a plug adapter"],
        ["alice", "/memories/travel/packing.md", "Pack light"],
        ["bob", "/memories/work/stack.md", "Uses PostgreSQL 15"],
      ]);
      // The export's layout (memories/<user>/...) of the same files reads as the same memories.
      const exported = new Map([...files].map(([name, bytes]) => [name.replace(/^(\w+)\/memories\//, "memories/$1/"), bytes]));
      expect(parseMemoryFiles(exported).memories.map((m) => [m.user_id, m.structured_data?.path, m.content]).sort((a, b) => String(a).localeCompare(String(b)))).toEqual(rows);
    } finally {
      fs.rmSync(base, { recursive: true, force: true });
    }
  });
});
