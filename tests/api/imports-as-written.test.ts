import fs from "node:fs";
import path from "node:path";
import { strFromU8, strToU8, unzipSync, zipSync, type Zippable } from "fflate";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient } from "../helpers/api-client";
import { sharedProject, type SharedProject } from "../helpers/shared-app";
import { runImportCli } from "../helpers/import-cli";
import { DATABASE_KINDS } from "../helpers/test-database";
import { stableUuid } from "@/lib/imports/stable-id";
import { zipFolder } from "@/lib/imports/zip-folder";
import { UUID_NIL } from "@/lib/threads/uuid-nil";

// Issue 36 (part B): files as the source systems' own code writes them, end to end through
// POST /api/v1/imports/upload (and the CLI) on both databases:
// - an agentscope-java harness workspace written by the harness's classes (tests/fixtures/
//   imports/agentscope-harness, scripts/fixtures/agentscope-harness.sh);
// - LangGraph store dumps by pg_dump in its COPY, --inserts and --column-inserts forms from a
//   table made by LangGraph's migrations (tests/fixtures/imports/langgraph);
// - Anthropic memory tool folders as BetaLocalFilesystemMemoryTool keeps them (<user>/memories/...);
// - bad files: every defect named, defective records left out whole, the good ones imported.

const FIX = path.join(__dirname, "../fixtures/imports");
const bytes = (p: string) => new Uint8Array(fs.readFileSync(path.join(FIX, p)));
const LINK = { os: 3, attrs: (0o120777 << 16) >>> 0 };

type Counts = { conversations: number; turns: number; memories: number; skipped: number; failed: number };
type Job = { id: string; format: string; status: string; counts: Counts; problems: { record: string; field?: string; message: string }[] };

describe.each(DATABASE_KINDS)("imports as the source systems write them on %s", (kind) => {
  let server: SharedProject;
  let api: ReturnType<typeof apiClient>;

  beforeAll(async () => {
    server = await sharedProject(kind, "imports-as-written");
    api = apiClient(server.url, server.headers);
  });
  afterAll(async () => {
    await server?.stop();
  });

  /** Uploads, expects 202, waits for the job's end. */
  async function run(body: Uint8Array, query: Record<string, string> = {}): Promise<Job> {
    const r = await fetch(`${server.url}/api/v1/imports/upload?${new URLSearchParams(query)}`, { method: "POST", headers: { ...server.headers, "content-type": "application/octet-stream" }, body: Buffer.from(body) });
    const started = await r.json();
    expect(r.status, JSON.stringify(started)).toBe(202);
    const deadline = Date.now() + 60_000;
    for (;;) {
      const j = await api.get(`/imports/${started.id}`);
      if (j.body.status !== "running") return j.body as Job;
      if (Date.now() > deadline) throw new Error(`import ${started.id} still running`);
      await new Promise((res) => setTimeout(res, 100));
    }
  }

  type Msg = { id: string; parent_message_id: string | null; query: string; answer: string; created_at: string; metadata: Record<string, unknown> };
  const messages = async (conv: string) => (await api.get(`/conversations/${conv}/messages?limit=100`)).body.data as Msg[];

  it("AgentScope harness workspace: sessions per namespace and agent, branches, tool calls with results, memories per owner; dry run = run; re-run adds nothing", async () => {
    const zip = zipFolder(path.join(FIX, "agentscope-harness"));
    const expected = { conversations: 5, turns: 9, memories: 9, skipped: 6, failed: 0 };
    const dry = await run(zip, { dry_run: "true" });
    expect(dry.format).toBe("agentscope");
    expect(dry.counts).toEqual(expected);
    const job = await run(zip);
    expect(job.counts).toEqual(expected);

    const conv = (seat: string) => stableUuid(`agentscope-conversation:${seat}`);
    const trip = conv("alice/concierge/s-trip");
    expect((await api.get(`/conversations/${trip}`)).body).toMatchObject({ end_user_id: "alice", app_id: "agentscope", turn_count: 4 });
    expect((await api.get(`/conversations/${conv("bob/coder/s-bob")}`)).body).toMatchObject({ end_user_id: "bob", turn_count: 2 });
    expect((await api.get(`/conversations/${conv("ops/s-root")}`)).body).toMatchObject({ end_user_id: null, turn_count: 1 });
    const turn = (entry: string) => stableUuid(`agentscope-turn:alice/concierge/s-trip:${entry}`);
    const msgs = await messages(trip);
    // m1 (plan) -> m5 (image) -> {m7 (booking, before the other replica's turn), m11 (Porto: the last entry)}
    expect(new Map(msgs.map((m) => [m.id, m.parent_message_id]))).toEqual(new Map([[turn("m1"), UUID_NIL], [turn("m5"), turn("m1")], [turn("m7"), turn("m5")], [turn("m11"), turn("m5")]]));
    expect((await api.get(`/conversations/${trip}/thread`)).body).toEqual({ leaf_message_id: turn("m11"), message_ids: [turn("m11"), turn("m5"), turn("m1")] });
    const booking = msgs.find((m) => m.id === turn("m7"))!;
    expect(booking).toMatchObject({ query: "Book the second night too, and check the train to Sintra", answer: "Booked (#A17). Trains leave Rossio every 20 minutes." });
    expect((booking.metadata.tool_calls as { id: string; name: string; result: string }[]).map((c) => [c.id, c.name, c.result])).toEqual([
      ["call-2", "book", "confirmed #A17"],
      ["call-3", "trains", "Rossio to Sintra every 20 min"],
    ]);
    expect(msgs.find((m) => m.id === turn("m5"))!.metadata).toMatchObject({ block_types: ["image"] });
    // v2.0.x: the tool call and result rendered as text become a tool call with its result.
    const old = await messages(conv("carol/concierge/s-old"));
    expect(old).toHaveLength(1);
    expect(old[0]).toMatchObject({ query: "Weather in Oslo?", answer: "4°C and rain: bring a coat." });
    expect(old[0].metadata.tool_calls).toEqual([{ id: "w1", name: "weather", arguments: '{"city":"Oslo"}', result: "4°C, rain" }]);

    // Memories belong to the namespace; a daily note's item has its flush's time.
    const alice = (await api.get("/users/alice/memories?limit=100")).body.data as { content: string; created_at: string; structured_data: { path: string } }[];
    expect(alice).toHaveLength(7);
    expect(alice.find((m) => m.content === "Alice booked Alfama Rooms for two nights")).toMatchObject({ created_at: "2026-11-20T18:05:00.000Z", structured_data: { path: "alice/memory/2026-11-20.md" } });
    expect(((await api.get("/users/bob/memories")).body.data as { content: string }[]).map((m) => m.content)).toEqual(["Bob's project builds with Gradle"]);
    expect(((await api.get("/users/agentscope/memories")).body.data as { content: string }[]).map((m) => m.content)).toEqual(["The team's standup is at 09:30 CET"]);

    expect((await run(zip)).counts).toMatchObject({ conversations: 0, turns: 0, memories: 0, failed: 0 });
  });

  it("AgentScope: the README's sessions/<id>/context.jsonl zip is detected as AgentScope, not as a memory folder", async () => {
    const line = (o: object) => JSON.stringify(o);
    const zip = zipSync({
      "ws/sessions/s-ctx/context.jsonl": strToU8(
        [
          line({ id: "u1", name: "mia", role: "user", content: [{ type: "text", text: "Hello" }], created_at: "2026-05-01T10:00:00Z" }),
          line({ id: "a1", name: "Friday", role: "assistant", content: [{ type: "text", text: "Hi Mia" }], created_at: "2026-05-01T10:00:01Z" }),
        ].join("\n"),
      ),
      "ws/MEMORY.md": strToU8("- Mia likes tea\n"),
    });
    const job = await run(zip);
    expect(job.format).toBe("agentscope");
    expect(job.counts).toEqual({ conversations: 1, turns: 1, memories: 1, skipped: 0, failed: 0 });
    expect((await api.get(`/conversations/${stableUuid("agentscope-conversation:s-ctx")}`)).body).toMatchObject({ end_user_id: "mia", turn_count: 1 });
  });

  it("AgentScope bad file: a dry run names every defect; the run leaves the defective session out whole and imports the good one", async () => {
    const good = fs.readFileSync(path.join(FIX, "agentscope-harness/bob/agents/coder/sessions/s-bob.jsonl"));
    const bad = [
      JSON.stringify({ type: "message", id: "x1", timestamp: 1795165207.25, role: "USER", content: "Hi" }),
      JSON.stringify({ type: "message", id: "x2", parentId: "x1", timestamp: 1795165208, role: "ROBOT", content: "?" }),
      JSON.stringify({ type: "tool_use", id: "x3", parentId: "x2", timestamp: 1795165209, name: "search" }),
      "{not json",
    ].join("\n");
    const zip = zipSync({ "dana/agents/coder/sessions/s-good.jsonl": new Uint8Array(good), "dana/agents/coder/sessions/s-bad.jsonl": strToU8(bad) });
    const dry = await run(zip, { dry_run: "true" });
    const problems = [
      // Every defect named under the session it leaves out (where, in the message): one failed record.
      { record: "session dana/coder/s-bad", field: "role", message: 'dana/agents/coder/sessions/s-bad.jsonl line 2: must be USER, ASSISTANT, SYSTEM or TOOL, got "ROBOT"' },
      { record: "session dana/coder/s-bad", field: "toolCallId", message: "dana/agents/coder/sessions/s-bad.jsonl line 3: missing (a tool_use entry has one)" },
      { record: "session dana/coder/s-bad", message: expect.stringMatching(/^dana\/agents\/coder\/sessions\/s-bad\.jsonl line 4: not JSON/) },
      { record: "session dana/coder/s-bad", message: "left out: 3 defects (named above); a session is imported whole or not at all" },
    ];
    expect(dry.problems).toEqual(problems);
    const job = await run(zip);
    expect(job.counts).toEqual(dry.counts);
    expect(job.counts).toEqual({ conversations: 1, turns: 2, memories: 0, skipped: 0, failed: 1 });
    expect(job.problems).toEqual(problems);
    expect((await api.get(`/conversations/${stableUuid("agentscope-conversation:dana/coder/s-bad")}`)).status).toBe(404);
    expect((await api.get(`/conversations/${stableUuid("agentscope-conversation:dana/coder/s-good")}`)).body).toMatchObject({ end_user_id: "dana", turn_count: 2 });
  });

  it("LangGraph: pg_dump's COPY, --inserts and --column-inserts are the same rows; the CLI's --user-from namespace[1] names the user; a kind without content is a named defect", async () => {
    const forms = ["copy", "inserts", "column-inserts"].map((f) => bytes(`langgraph/${f}.sql`));
    // Detected as LangGraph (never a memory folder), without a format.
    const dry = await run(forms[1], { dry_run: "true" });
    expect(dry.format).toBe("langgraph");
    expect(dry.counts).toEqual({ conversations: 0, turns: 0, memories: 3, skipped: 1, failed: 1 });
    expect(dry.problems).toEqual([{ record: "line 47 (memories.carol.legacy/k-empty)", field: "value.content", message: 'a "UserProfile" memory with no content (LangMem\'s memory manager writes {"kind", "content"})' }]);

    const cli = await runImportCli(server.url, ["--user-from", "namespace[1]", path.join(FIX, "langgraph/column-inserts.sql")], server.key);
    expect(cli.out).toContain("imported: 0 conversations, 0 turns, 3 memories; skipped 1; failed 1");
    // (alice and bob also have the AgentScope workspace's memories in this project: the store's are these)
    type M = { content: string; created_at: string; structured_data: { source: string } };
    const ofStore = async (user: string) => ((await api.get(`/users/${user}/memories?limit=100`)).body.data as M[]).filter((m) => m.structured_data.source === "langgraph");
    const alice = await ofStore("alice");
    expect(alice.map((m) => [m.content, m.created_at]).sort()).toEqual([
      ["Alice's home airport is LIS", "2026-03-02T09:30:00.250Z"],
      ["Prefers window seats ✈", "2026-03-01T10:00:00.000Z"],
    ]);
    expect((await ofStore("bob")).map((m) => m.content)).toEqual(["Bob writes Rust,\nand\tlikes tabs \\ backslashes"]);
    expect((await api.get("/users/user_profile/memories")).body.data).toEqual([]);
    // The same store in the other two forms: nothing new.
    for (const f of [forms[0], forms[1]]) expect((await run(f, { namespace_user_index: "1" })).counts).toEqual({ conversations: 0, turns: 0, memories: 0, skipped: 4, failed: 1 });
    const bad = await runImportCli(server.url, ["--user-from", "user[1]", path.join(FIX, "langgraph/copy.sql")], server.key);
    expect(bad.code).toBe(1);
    expect(bad.out).toContain("--user-from must be namespace[i]");
  });

  it("Anthropic memory tool folders: paths relative to the memory root, the same after memories.zip and re-import; links and Latin-1 not lost silently", async () => {
    const files: Zippable = {
      "frank/memories/travel/packing.md": strToU8("- Pack light\n- Bring a plug adapter\n"),
      "frank/memories/breakfast.txt": new Uint8Array([...Buffer.from("Caf"), 0xe9, ...Buffer.from(" au lait every morning\n")]),
      "frank/memories/latest.md": [strToU8("travel/packing.md"), LINK],
      "frank/memories/escape.md": [strToU8("../../../etc/passwd"), LINK],
      "grace/memories/hobbies.md": strToU8("- Plays chess\n"),
    };
    const job = await run(zipSync(files));
    expect(job.format).toBe("memory-dir");
    expect(job.counts).toEqual({ conversations: 0, turns: 0, memories: 4, skipped: 1, failed: 1 });
    expect(job.problems).toEqual([{ record: "frank/memories/escape.md", message: 'a symbolic link to "../../../etc/passwd" that names no file in the folder: left out' }]);
    type M = { content: string; structured_data: { path: string; encoding?: string } };
    const frank = async () => ((await api.get("/users/frank/memories")).body.data as M[]).map((m) => [m.content, m.structured_data.path, m.structured_data.encoding ?? null]).sort();
    const before = await frank();
    expect(before).toEqual([
      ["Bring a plug adapter", "/memories/travel/packing.md", null],
      ["Café au lait every morning", "/memories/breakfast.txt", "windows-1252"],
      ["Pack light", "/memories/travel/packing.md", null],
    ]);
    const out = await fetch(`${server.url}/api/v1/users/frank/memory-files/memories.zip`, { headers: server.headers });
    const exported = unzipSync(new Uint8Array(await out.arrayBuffer()));
    expect(Object.keys(exported).sort()).toEqual(["memories/frank/breakfast.txt", "memories/frank/travel/packing.md"]);
    expect(strFromU8(exported["memories/frank/travel/packing.md"])).toBe("- Pack light\n- Bring a plug adapter\n");
    // Re-imported: nothing new, every path the same.
    const back = await run(zipSync(exported), { format: "memory-dir" });
    expect(back.counts).toMatchObject({ memories: 0, failed: 0 });
    expect(await frank()).toEqual(before);
  });
});
