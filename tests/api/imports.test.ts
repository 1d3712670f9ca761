import { runImportCli } from "../helpers/import-cli";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient } from "../helpers/api-client";
import { sharedProject, type SharedProject } from "../helpers/shared-app";
import { UUID_NIL } from "@/lib/threads/uuid-nil";

// The import pipeline end to end through POST/GET /api/v1/imports on the embedded
// database: what each source writes shows up through the ordinary API (branches,
// /history windows, memories with their history), re-runs duplicate nothing, dry runs
// write nothing, and problems name their record and field.

const fixture = (name: string) => fs.readFileSync(path.join(__dirname, "../fixtures/imports", name), "utf8");
const C1 = "3f1c2a90-5b7e-4d21-9c3a-0a1b2c3d4e01";
const C2 = "3f1c2a90-5b7e-4d21-9c3a-0a1b2c3d4e02";
const m = (n: string) => `7a0d9e4c-1111-4c5a-8d2e-0000000000${n}`;

describe("imports API (embedded)", () => {
  let server: SharedProject;
  let api: ReturnType<typeof apiClient>;

  beforeAll(async () => {
    server = await sharedProject("embedded", "imports");
    api = apiClient(server.url, server.headers);
  });
  afterAll(async () => server?.stop());

  /** Starts an import and waits for its end; answers the finished job. */
  async function runImport(body: Record<string, unknown>) {
    const r = await api.post("/imports", body);
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    expect(r.body.status).toBe("running");
    const deadline = Date.now() + 60_000;
    for (;;) {
      const j = await api.get(`/imports/${r.body.id}`);
      expect(j.status).toBe(200);
      if (j.body.status === "done" || j.body.status === "failed") return j.body;
      if (Date.now() > deadline) throw new Error(`import ${r.body.id} still ${j.body.status}`);
      await new Promise((res) => setTimeout(res, 100));
    }
  }

  it("Dify Service API JSON: conversations with their branches, files, feedback and windows", async () => {
    const job = await runImport({ content: fixture("dify-api.json"), file_name: "dify-api.json", app_id: "travel" });
    expect(job).toMatchObject({ format: "dify-api", status: "done", dry_run: false, total: 3, processed: 3, label: "dify-api.json" });
    expect(job.counts).toEqual({ conversations: 2, turns: 7, memories: 0, skipped: 0, failed: 1 });
    expect(job.problems).toEqual([{ record: "conversations[2]", field: "messages[0].created_at", message: "not a valid time" }]);

    const conv = await api.get(`/conversations/${C1}`);
    expect(conv.body).toMatchObject({ app_id: "travel", end_user_id: "ana@example.com", name: "Trip to Porto", turn_count: 5, branch_count: 2 });
    expect(conv.body.created_at).toBe("2026-01-01T10:00:00.000Z");
    expect(conv.body.updated_at).toBe(new Date(1767262500 * 1000).toISOString());

    const msgs = await api.get(`/conversations/${C1}/messages`);
    const byId = new Map(msgs.body.data.map((x: { id: string }) => [x.id, x]));
    expect(msgs.body.data.map((x: { id: string }) => x.id)).toEqual([m("01"), m("02"), m("3a"), m("3b"), m("04")]);
    expect((byId.get(m("01")) as any).parent_message_id).toBeNull();
    expect((byId.get(m("3a")) as any).parent_message_id).toBe(m("02"));
    expect((byId.get(m("3b")) as any).parent_message_id).toBe(m("02"));
    expect((byId.get(m("01")) as any).files).toEqual([{ type: "image", transfer_method: "remote_url", url: "https://files.example.com/ticket.png", upload_file_id: null, belongs_to: "user" }]);
    expect((byId.get(m("3b")) as any).metadata.feedback).toEqual({ rating: "like" });
    expect((byId.get(m("04")) as any).answer_tokens).toBe(14);
    expect((byId.get(m("04")) as any).created_at).toBe(new Date(1767262500 * 1000).toISOString());

    // The window follows the regenerated (newer) branch, as Dify does.
    const h = await api.get(`/conversations/${C1}/history?max_token_limit=100000`);
    expect(h.status).toBe(200);
    expect([...h.body.thread_message_ids].sort()).toEqual([m("01"), m("02"), m("3b"), m("04")].sort());
    expect(h.body.messages.at(-1)).toEqual({ role: "assistant", content: "Done: the 09:10 train on Friday, second class." });

    // Service API rows carry UUID_NIL parents: kept, and the window is the linear history.
    const c2 = await api.get(`/conversations/${C2}/messages`);
    expect(c2.body.data.map((x: { parent_message_id: string }) => x.parent_message_id)).toEqual([UUID_NIL, UUID_NIL]);
    expect(c2.body.data[0].metadata.tool_calls[0]).toMatchObject({ name: "get_forecast", result: "rain 60%, 14C" });
    const h2 = await api.get(`/conversations/${C2}/history`);
    expect(h2.body.thread_message_ids).toHaveLength(2);
  });

  it("re-running the same file duplicates nothing; a file with one more message adds just that turn", async () => {
    const again = await runImport({ content: fixture("dify-api.json"), app_id: "travel" });
    expect(again.counts).toEqual({ conversations: 0, turns: 0, memories: 0, skipped: 2, failed: 1 });
    expect((await api.get(`/conversations/${C1}`)).body.turn_count).toBe(5);

    const doc = JSON.parse(fixture("dify-api.json"));
    doc.conversations = [doc.conversations[0]];
    doc.conversations[0].messages.push({
      id: m("05"), conversation_id: C1, parent_message_id: m("04"), query: "Thanks!", answer: "Have a good trip.", created_at: 1767262600,
    });
    const grown = await runImport({ content: JSON.stringify(doc), app_id: "travel" });
    expect(grown.counts).toEqual({ conversations: 1, turns: 1, memories: 0, skipped: 0, failed: 0 });
    const conv = (await api.get(`/conversations/${C1}`)).body;
    expect(conv).toMatchObject({ turn_count: 6, branch_count: 2 });
  });

  it("Mem0 export: a dry run writes nothing; the run writes memories with their history; a re-run skips them", async () => {
    const user = encodeURIComponent("ana@example.com");
    const dry = await runImport({ content: fixture("mem0.json"), dry_run: true });
    expect(dry).toMatchObject({ format: "mem0", dry_run: true, status: "done" });
    expect(dry.counts).toEqual({ conversations: 0, turns: 0, memories: 4, skipped: 0, failed: 1 });
    expect(dry.problems[0]).toMatchObject({ record: "memory c1d2e3f4-0000-4000-8000-000000000004", field: "user_id" });
    expect((await api.get(`/users/${user}/memories?status=all`)).body.data).toHaveLength(0);

    const job = await runImport({ content: fixture("mem0.json") });
    expect(job.counts).toEqual({ conversations: 0, turns: 0, memories: 4, skipped: 0, failed: 1 });
    const list = (await api.get(`/users/${user}/memories?status=all&limit=50`)).body.data as any[];
    expect(list).toHaveLength(4);
    const seats = list.find((x) => x.content === "Prefers window seats on trains");
    expect(seats).toMatchObject({ memory_type: "preference", status: "active", created_at: "2026-01-02T17:00:00.000Z", updated_at: "2026-01-05T18:30:00.000Z" });
    expect(seats.structured_data.mem0.id).toBe("c1d2e3f4-0000-4000-8000-000000000001");
    expect(list.find((x) => x.content === "Is allergic to peanuts")).toMatchObject({ status: "archived" });

    const history = (await api.get(`/memories/${seats.id}/history`)).body.data as any[];
    const mem0Events = history.filter((e) => e.reason?.startsWith("Mem0"));
    expect(mem0Events.map((e) => [e.event_type, e.before?.content ?? null, e.after?.content ?? null, e.created_at])).toEqual([
      ["update", "Prefers aisle seats on trains", "Prefers window seats on trains", "2026-01-05T18:30:00.000Z"],
      ["create", null, "Prefers aisle seats on trains", "2026-01-02T17:00:00.000Z"],
    ]);
    expect(history.some((e) => e.event_type === "import")).toBe(true);

    // Imported memories are searchable like any other.
    const found = await api.post(`/users/${user}/memories/search`, { query: "Prefers window seats on trains", k: 3, dry_run: true });
    expect(found.body.data.map((d: { memory: { id: string } }) => d.memory.id)).toContain(seats.id);
    expect(found.body.data.find((d: { memory: { id: string } }) => d.memory.id === seats.id).breakdown.cosine).toBeGreaterThan(0.5);

    const again = await runImport({ content: fixture("mem0.json") });
    expect(again.counts).toEqual({ conversations: 0, turns: 0, memories: 0, skipped: 4, failed: 1 });
    expect((await api.get(`/users/${user}/memories?status=all`)).body.data).toHaveLength(4);
  });

  it("Mem0 history of add, update, update, delete: as_of reads each state at its instant, rebuilt exactly", async () => {
    const user = "mem0-history@example.com";
    const mid = "c1d2e3f4-0000-4000-8000-0000000000aa";
    const ev = (n: number, event: string, old_memory: string | null, new_memory: string | null, created_at: string) => ({
      id: `e0000000-0000-4000-8000-0000000000a${n}`,
      memory_id: mid,
      event,
      old_memory,
      new_memory,
      created_at,
    });
    const doc = {
      results: [{ id: mid, memory: "Lives in Porto", user_id: user, created_at: "2026-02-01T10:00:00Z", updated_at: "2026-02-03T10:00:00Z" }],
      history: {
        [mid]: [
          ev(1, "ADD", null, "Lives in Lisbon", "2026-02-01T10:00:00Z"),
          ev(2, "UPDATE", "Lives in Lisbon", "Lives in Madrid", "2026-02-02T10:00:00Z"),
          ev(3, "UPDATE", "Lives in Madrid", "Lives in Porto", "2026-02-03T10:00:00Z"),
          ev(4, "DELETE", "Lives in Porto", null, "2026-02-04T10:00:00Z"),
        ],
      },
    };
    const job = await runImport({ content: JSON.stringify(doc), format: "mem0" });
    expect(job.counts).toMatchObject({ memories: 1, failed: 0 });
    const u = encodeURIComponent(user);
    const [live] = (await api.get(`/users/${u}/memories?status=all`)).body.data as any[];
    expect(live).toMatchObject({ content: "Lives in Porto", status: "archived", version: 4 });

    const at = async (t: string) => {
      const one = await api.get(`/memories/${live.id}?as_of=${encodeURIComponent(t)}`);
      const list = (await api.get(`/users/${u}/memories?status=all&as_of=${encodeURIComponent(t)}`)).body.data as any[];
      return { one, list };
    };
    const before = await at("2026-01-31T00:00:00Z");
    expect(before.one.status).toBe(404);
    expect(before.list).toEqual([]);
    for (const [t, content, status, version] of [
      ["2026-02-01T12:00:00Z", "Lives in Lisbon", "active", 1],
      ["2026-02-02T12:00:00Z", "Lives in Madrid", "active", 2],
      ["2026-02-03T12:00:00Z", "Lives in Porto", "active", 3],
      ["2026-02-04T12:00:00Z", "Lives in Porto", "archived", 4],
    ] as const) {
      const { one, list } = await at(t);
      expect(one.status, t).toBe(200);
      expect(one.body, t).toMatchObject({ content, status, version, reconstructed: true, reason: null });
      expect(list.map((x) => [x.content, x.status]), t).toEqual([[content, status]]);
    }
  });

  it("OpenAI JSONL: turns, system messages, tool calls; bad lines are named by line and field", async () => {
    const job = await runImport({ content: fixture("openai.jsonl"), format: "openai", app_id: "cooking" });
    expect(job.counts).toEqual({ conversations: 2, turns: 3, memories: 0, skipped: 0, failed: 2 });
    expect(job.problems.map((p: { record: string; field?: string }) => [p.record, p.field ?? null])).toEqual([
      ["line 3", null],
      ["line 4", "messages[1].role"],
    ]);
    const list = (await api.get(`/conversations?app_id=cooking`)).body.data as any[];
    expect(list).toHaveLength(2);
    const eggs = list.find((c) => c.name.startsWith("How long"));
    expect(eggs.model_config).toEqual({ source: "openai", system_messages: ["You are a concise cooking assistant."] });
    expect(eggs.turn_count).toBe(2);
    const weather = list.find((c) => c.name.startsWith("What is in"));
    const [turn] = (await api.get(`/conversations/${weather.id}/messages`)).body.data;
    expect(turn.metadata.tool_calls).toEqual([{ id: "call_1", name: "get_weather", arguments: '{"city": "Porto"}', result: '{"temp_c": 17, "sky": "clear"}' }]);
    expect(turn.files[0]).toMatchObject({ type: "image", url: "https://images.example.com/harbour.jpg" });

    const again = await runImport({ content: fixture("openai.jsonl") });
    expect(again.counts).toEqual({ conversations: 0, turns: 0, memories: 0, skipped: 2, failed: 2 });
  });

  it("a message id taken by another conversation fails that conversation alone, naming the field; nothing of it is written", async () => {
    const doc = {
      conversations: [
        { id: "11111111-2222-4333-8444-555555555501", messages: [{ id: m("01"), parent_message_id: null, query: "dup", answer: "dup", created_at: 1767300000 }] },
        { id: "11111111-2222-4333-8444-555555555502", messages: [{ id: "11111111-2222-4333-8444-5555555555aa", parent_message_id: null, query: "fine", answer: "fine", created_at: 1767300000 }] },
      ],
    };
    const job = await runImport({ content: JSON.stringify(doc) });
    expect(job.counts).toMatchObject({ conversations: 1, turns: 1, failed: 1 });
    expect(job.problems[0]).toEqual({ record: "conversations[0]", field: "messages[0].id", message: `message ${m("01")} already exists in another conversation` });
    expect((await api.get(`/conversations/11111111-2222-4333-8444-555555555501`)).status).toBe(404);
  });

  it("the CLI (npm run import) sends a file, shows the problems and ends with the summary line", async () => {
    const cli = (args: string[]) => runImportCli(server.url, args, server.key);
    const file = path.join(__dirname, "../fixtures/imports/dify-messages-page.json");
    const dry = await cli(["--dry-run", file]);
    expect(dry.out.trim().split("\n").at(-1)).toBe("would import: 1 conversations, 2 turns, 0 memories; skipped 0; failed 0");
    expect(dry.code).toBe(0);
    const real = await cli(["--format", "dify-api", "--app-id", "billing", file]);
    expect(real.out.trim().split("\n").at(-1)).toBe("imported: 1 conversations, 2 turns, 0 memories; skipped 0; failed 0");
    expect((await api.get("/conversations/2e9d1c40-6a5b-4c3d-8e7f-0a1b2c3d4e10")).body).toMatchObject({ app_id: "billing", turn_count: 2 });
    // A file imported before (by this test itself, whatever ran earlier): all skipped, its problems still said.
    await cli([path.join(__dirname, "../fixtures/imports/openai.jsonl")]);
    const again = await cli([path.join(__dirname, "../fixtures/imports/openai.jsonl")]);
    expect(again.out).toContain("problem: line 4 messages[1].role");
    expect(again.out.trim().split("\n").at(-1)).toBe("imported: 0 conversations, 0 turns, 0 memories; skipped 2; failed 2");
    expect(again.code).toBe(1);
    const bad = await cli(["--format", "nope", file]);
    expect(bad.code).toBe(1);
    expect(bad.out).toContain("--format must be one of dify-api, dify-db, mem0, openai, chatgpt, claude, letta, openai-agents, memory-dir, agentscope");
  });

  it("bad requests are 4xx naming the field", async () => {
    const noApp = await api.post("/imports", { format: "dify-db" });
    expect(noApp.status).toBe(422);
    expect(noApp.body.error.details.map((d: { field: string }) => d.field)).toContain("dify_app_id");
    const noContent = await api.post("/imports", { format: "mem0" });
    expect(noContent.status).toBe(422);
    expect(noContent.body.error.details[0].field).toBe("content");
    const unknown = await api.post("/imports", { content: '{"hello": "world"}' });
    expect(unknown.status).toBe(422);
    expect(unknown.body.error.details[0].field).toBe("format");
    const jsonlAsMem0 = await api.post("/imports", { content: fixture("openai.jsonl"), format: "mem0" });
    expect(jsonlAsMem0.status).toBe(422);
    expect(jsonlAsMem0.body.error.details[0].field).toBe("content");
    const notConfigured = await api.post("/imports", { format: "dify-db", dify_app_id: "11111111-2222-4333-8444-555555555555" });
    expect(notConfigured.status).toBe(409);
    expect(notConfigured.body.error.details[0].field).toBe("MEMSCOPE_DIFY_DATABASE_URL");
    expect((await api.get("/imports/not-a-job")).status).toBe(404);
    expect((await api.get("/imports/11111111-2222-4333-8444-555555555555")).status).toBe(404);
    const apps = await api.get("/imports/dify-apps");
    expect(apps.body).toEqual({ configured: false, error: null, data: [] });
    const jobs = await api.get("/imports");
    expect(jobs.body.data.length).toBeGreaterThanOrEqual(6);
  });
});
