import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient } from "../helpers/api-client";
import { sharedProject, type SharedProject } from "../helpers/shared-app";
import type { Owner } from "../helpers/owner";

// Memory incidents over HTTP (issue 38): found on ingest within seconds, listed with filters
// and a cursor, judged (false_positive suppresses the pair), made eval cases, scanned as a
// job, summarised; bad filters are 400s naming the field; another project sees nothing.

type Api = ReturnType<typeof apiClient>;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("incidents API (embedded)", () => {
  let server: SharedProject;
  let owner: Owner;
  let n = 0;
  const project = async (scopes = ["read", "write", "admin"]) => {
    const p = await owner.post("/projects", { name: `incidents ${++n}` });
    const key = await owner.key(`k${n}`, scopes, p.id);
    return { api: apiClient(server.url, { authorization: `Bearer ${key}` }), readOnly: apiClient(server.url, { authorization: `Bearer ${await owner.key(`r${n}`, ["read"], p.id)}` }) };
  };

  beforeAll(async () => {
    server = await sharedProject("embedded", "incidents");
    owner = server.owner;
  }, 240_000);
  afterAll(async () => server?.stop());

  /** Waits until GET path answers a list with at least `count` items. */
  async function waitFor(api: Api, path: string, count: number, ms = 10_000) {
    const deadline = Date.now() + ms;
    for (;;) {
      const r = await api.get(path);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      if (r.body.data.length >= count) return r.body.data;
      if (Date.now() > deadline) return r.body.data;
      await sleep(100);
    }
  }

  /**
   * A user with a dentist appointment (a fact) whose app's profile retrieves preferences only,
   * and a turn asking for it whose answer says it does not know: a missed_memory, high.
   */
  async function missedScene(api: Api) {
    const user = `u-${randomUUID().slice(0, 8)}`;
    const app = `planner-${randomUUID().slice(0, 6)}`;
    const mem = await api.post(`/users/${user}/memories`, { memory_type: "fact", content: "Has a dentist appointment on Tuesday at 9" });
    expect(mem.status).toBe(201);
    expect((await api.post(`/profiles/${app}/versions`, { settings: { strategy: { type: "message_window" }, memory: { k: 5, memory_types: ["preference"] } } })).status).toBe(201);
    const c = await api.post("/conversations", { app_id: app, end_user_id: user, name: "planning" });
    const turn = randomUUID();
    const at = new Date(Date.now() + 60_000).toISOString();
    const batch = await api.post(`/conversations/${c.body.id}/messages/batch`, {
      messages: [{ id: turn, parent_message_id: null, query: "When is my dentist appointment?", answer: "I don't remember you mentioning a dentist appointment.", created_at: at }],
    });
    expect(batch.status).toBe(201);
    return { user, app, memory: mem.body.id as string, conversation: c.body.id as string, turn };
  }

  it("a turn written through the batch API is checked in the background within seconds", async () => {
    const { api } = await project();
    const s = await missedScene(api);
    const t0 = Date.now();
    const data = await waitFor(api, `/incidents?conversation_id=${s.conversation}`, 1);
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect(data).toHaveLength(1);
    expect(data[0]).toMatchObject({
      kind: "missed_memory",
      severity: "high",
      status: "open",
      conversation_id: s.conversation,
      message_id: s.turn,
      user_id: s.user,
      app_id: s.app,
      memory_ids: [s.memory],
    });
    expect(data[0].evidence).toMatchObject({
      memory: { id: s.memory, content: "Has a dentist appointment on Tuesday at 9" },
      prompt_source: "replayed",
      out_reason: "its type fact is not among the profile's memory_types",
    });
    expect(data[0].evidence.absence_phrase).toMatch(/I don't remember/);
    expect(data[0].summary).toContain("Has a dentist appointment");
    expect((await api.get(`/incidents/${data[0].id}`)).body).toEqual(data[0]);
  });

  it("filters, cursor, and 400 invalid_filter naming the field for an unknown kind, status or severity", async () => {
    const { api } = await project();
    const a = await missedScene(api);
    const b = await missedScene(api);
    await waitFor(api, "/incidents", 2);
    const page1 = await api.get("/incidents?limit=1");
    expect(page1.body.data).toHaveLength(1);
    expect(page1.body.next_cursor).toEqual(expect.any(String));
    const page2 = await api.get(`/incidents?limit=1&cursor=${page1.body.next_cursor}`);
    expect(page2.body.data).toHaveLength(1);
    expect(page2.body.data[0].id).not.toBe(page1.body.data[0].id);
    expect(page2.body.next_cursor).toBeNull();
    expect((await api.get(`/incidents?user_id=${a.user}`)).body.data.map((i: { user_id: string }) => i.user_id)).toEqual([a.user]);
    expect((await api.get(`/incidents?app_id=${b.app}`)).body.data).toHaveLength(1);
    expect((await api.get("/incidents?kind=missed_memory,stale_memory&status=open&severity=high")).body.data).toHaveLength(2);
    expect((await api.get("/incidents?kind=stale_memory")).body.data).toHaveLength(0);
    expect((await api.get(`/incidents?message_id=${a.turn}`)).body.data).toHaveLength(1);

    for (const [field, value] of [["kind", "forgotten"], ["status", "closed"], ["severity", "critical"], ["kind", "missed_memory,nope"]]) {
      const r = await api.get(`/incidents?${field}=${value}`);
      expect(r.status).toBe(400);
      expect(r.body.error).toMatchObject({ code: "invalid_filter", details: [{ field }] });
    }
    const badCursor = await api.get("/incidents?cursor=abc");
    expect(badCursor.status).toBe(400);
    const badConversation = await api.get("/incidents?conversation_id=not-a-uuid");
    expect(badConversation.status).toBe(422);
    expect(badConversation.body.error.details[0].field).toBe("conversation_id");
  });

  it("PATCH judges; false_positive suppresses the memory-and-rule pair for that user; precision in the summary; audit", async () => {
    const { api, readOnly } = await project();
    const s = await missedScene(api);
    const [inc] = await waitFor(api, `/incidents?conversation_id=${s.conversation}`, 1);
    expect((await readOnly.patch(`/incidents/${inc.id}`, { status: "acknowledged" })).status).toBe(403);
    const bad = await api.patch(`/incidents/${inc.id}`, { status: "closed" });
    expect(bad.status).toBe(422);
    expect(bad.body.error.details[0].field).toBe("status");
    expect((await api.patch(`/incidents/${randomUUID()}`, { status: "resolved" })).status).toBe(404);

    const fp = await api.patch(`/incidents/${inc.id}`, { status: "false_positive", note: "they cancelled it" });
    expect(fp.status).toBe(200);
    expect(fp.body).toMatchObject({ status: "false_positive", note: "they cancelled it", status_changed_by: expect.any(String) });

    // The same question again, later: suppressed for this memory and user.
    const again = randomUUID();
    await api.post(`/conversations/${s.conversation}/messages/batch`, {
      messages: [{ id: again, parent_message_id: s.turn, query: "When is my dentist appointment?", answer: "I don't know.", created_at: new Date(Date.now() + 120_000).toISOString() }],
    });
    // Another user's identical turn still raises one (the suppression is per user).
    const other = await missedScene(api);
    await waitFor(api, `/incidents?conversation_id=${other.conversation}`, 1);
    await sleep(500);
    expect((await api.get(`/incidents?message_id=${again}`)).body.data).toHaveLength(0);

    const sum = await api.get("/incidents/summary");
    expect(sum.status).toBe(200);
    expect(sum.body.precision.find((p: { kind: string }) => p.kind === "missed_memory")).toEqual({ kind: "missed_memory", judged: 1, confirmed: 0, false_positive: 1, precision: 0 });
    expect(sum.body.open_high).toBe(1);
    const [otherInc] = (await api.get(`/incidents?conversation_id=${other.conversation}`)).body.data;
    await api.patch(`/incidents/${otherInc.id}`, { status: "resolved" });
    const sum2 = (await api.get("/incidents/summary")).body;
    expect(sum2.precision.find((p: { kind: string }) => p.kind === "missed_memory")).toMatchObject({ judged: 2, confirmed: 1, precision: 0.5 });
    expect(sum2.open_high).toBe(0);
    const day = new Date(Date.now() + 60_000).toISOString().slice(0, 10);
    expect(sum2.days).toEqual([{ day, kind: "missed_memory", count: 2 }]);
    expect(sum2.totals.find((t: { kind: string }) => t.kind === "missed_memory")).toEqual({ kind: "missed_memory", count: 2, open: 0 });
    expect((await api.get("/incidents/summary?from=2026-02-10&to=2026-01-01")).status).toBe(422);

    // Leaving false_positive lifts the suppression: a rescan of the conversation finds the later turn.
    await api.patch(`/incidents/${inc.id}`, { status: "open" });
    const scan = await api.post("/incidents/scan", { conversation_id: s.conversation });
    expect(scan.status).toBe(202);
    expect((await waitFor(api, `/incidents?message_id=${again}`, 1)).length).toBe(1);

    const audit = (await api.get("/project/audit")).body.data.filter((e: { action: string }) => e.action === "incident.judged");
    expect(audit.length).toBeGreaterThanOrEqual(3);
    expect(audit.find((e: { target: string; details: { to: string } }) => e.target === inc.id && e.details.to === "false_positive")).toBeTruthy();
  });

  it("POST /incidents/{id}/eval-case makes a case expecting the missed memory", async () => {
    const { api } = await project();
    const s = await missedScene(api);
    const [inc] = await waitFor(api, `/incidents?conversation_id=${s.conversation}`, 1);
    const set = await api.post("/evals/sets", { name: `regressions ${randomUUID().slice(0, 6)}` });
    const r = await api.post(`/incidents/${inc.id}/eval-case`, { set_id: set.body.id });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ set_id: set.body.id, user_id: s.user, question: "When is my dentist appointment?", expected: { memory_ids: [s.memory] }, category: "missed_memory" });
    // Made again: the same case.
    expect((await api.post(`/incidents/${inc.id}/eval-case`, { set_id: set.body.id })).body.id).toBe(r.body.id);
    expect((await api.get(`/evals/sets/${set.body.id}/cases`)).body.data).toHaveLength(1);
    expect((await api.post(`/incidents/${inc.id}/eval-case`, { set_id: randomUUID() })).status).toBe(404);
    expect((await api.post(`/incidents/${randomUUID()}/eval-case`, { set_id: set.body.id })).status).toBe(404);
  });

  it("an incident naming no memory cannot be an eval case (422)", async () => {
    const { api } = await project();
    const app = `small-${randomUUID().slice(0, 6)}`;
    await api.post(`/profiles/${app}/versions`, { settings: { model: "gpt-4", strategy: { type: "message_window" }, reserved_output_tokens: 512 } });
    const c = await api.post("/conversations", { app_id: app, end_user_id: "big-paster", name: "long" });
    await api.post(`/conversations/${c.body.id}/messages/batch`, {
      messages: [{ query: `Check this: ${"lorem ipsum dolor sit amet ".repeat(1700)}`, answer: "ok", created_at: new Date(Date.now() + 60_000).toISOString() }],
    });
    const [inc] = await waitFor(api, `/incidents?conversation_id=${c.body.id}`, 1);
    expect(inc).toMatchObject({ kind: "over_context_window", severity: "high", memory_ids: [] });
    expect(inc.evidence).toMatchObject({ source: "replayed", model: "gpt-4", context_window: 8192, reserved_output_tokens: 512 });
    const set = await api.post("/evals/sets", { name: `r ${randomUUID().slice(0, 6)}` });
    const r = await api.post(`/incidents/${inc.id}/eval-case`, { set_id: set.body.id });
    expect(r.status).toBe(422);
    expect(r.body.error.details[0].field).toBe("id");
  });

  it("scan: 202 with progress to done; 404 for an unknown conversation; 409 naming the running job of the same scope", async () => {
    const { api } = await project();
    // Enough conversations that a scan of the project runs for a while.
    const conversations = Array.from({ length: 800 }, (_, i) => ({
      id: randomUUID(),
      name: `c${i}`,
      created_at: 1767261600 + i,
      user: `bulk-${i % 50}`,
      messages: [] as { id: string; parent_message_id: string | null; query: string; answer: string; created_at: number }[],
    }));
    for (const [i, c] of conversations.entries()) {
      for (const j of [0, 1, 2]) {
        c.messages.push({ id: randomUUID(), parent_message_id: j ? c.messages[j - 1].id : null, query: `Question ${j} about item ${i}?`, answer: `Answer ${j}.`, created_at: 1767261600 + i + j });
      }
    }
    const imp = await api.post("/imports", { content: JSON.stringify({ conversations }), format: "dify-api" });
    expect(imp.status, JSON.stringify(imp.body)).toBe(202);
    for (let i = 0; i < 600; i++) {
      const j = await api.get(`/imports/${imp.body.id}`);
      if (j.body.status !== "running") break;
      await sleep(100);
    }
    const [first, second] = await Promise.all([api.post("/incidents/scan", {}), api.post("/incidents/scan")]);
    const ok = first.status === 202 ? first : second;
    const busy = first.status === 202 ? second : first;
    expect(ok.status).toBe(202);
    expect(ok.body).toMatchObject({ status: "running", conversation_id: null, conversations_total: 800 });
    expect(busy.status).toBe(409);
    expect(busy.body.error).toMatchObject({ code: "incident_scan_in_progress", details: [{ job_id: ok.body.id }] });
    expect(busy.body.error.message).toContain(ok.body.id);
    // Another scope runs beside it.
    const one = await api.post("/incidents/scan", { conversation_id: conversations[0].id });
    expect(one.status).toBe(202);
    let job = ok.body;
    for (let i = 0; i < 600 && job.status === "running"; i++) {
      await sleep(100);
      job = (await api.get(`/incidents/scan/${ok.body.id}`)).body;
    }
    expect(job).toMatchObject({ status: "done", conversations_total: 800, conversations_done: 800, turns_scanned: 2400, progress: 1, error: null });
    const since = await api.post("/incidents/scan", { since: "2026-01-01T10:10:00Z" });
    expect(since.status).toBe(202);
    expect(since.body.conversations_total).toBeLessThan(800);

    const missing = await api.post("/incidents/scan", { conversation_id: randomUUID() });
    expect(missing.status).toBe(404);
    expect(missing.body.error.details[0].field).toBe("conversation_id");
    expect((await api.get(`/incidents/scan/${randomUUID()}`)).status).toBe(404);
    expect((await api.post("/incidents/scan", { since: "yesterday" })).status).toBe(422);
  }, 120_000);

  it("an end user's export carries their incidents and suppressions, erasure removes them, the import puts them back", async () => {
    const { api } = await project();
    const s = await missedScene(api);
    const [inc] = await waitFor(api, `/incidents?conversation_id=${s.conversation}`, 1);
    await api.patch(`/incidents/${inc.id}`, { status: "false_positive", note: "fine" });
    const exp = await api.get(`/users/${s.user}/export`);
    expect(exp.status).toBe(200);
    expect(exp.body.tables.incidents).toEqual([expect.objectContaining({ id: inc.id, kind: "missed_memory", status: "false_positive", user_id: s.user })]);
    expect(exp.body.tables.incident_suppressions).toEqual([expect.objectContaining({ user_id: s.user, kind: "missed_memory", memory_id: s.memory, incident_id: inc.id })]);
    const erased = await api.post(`/users/${s.user}/erase`, { confirm: true });
    expect(erased.status, JSON.stringify(erased.body)).toBe(200);
    expect(erased.body.receipt.probes.passed).toBe(true);
    expect((await api.get(`/incidents/${inc.id}`)).status).toBe(404);
    expect((await api.get(`/incidents?user_id=${s.user}`)).body.data).toEqual([]);
    const back = await api.post("/user-imports", exp.body);
    expect(back.status, JSON.stringify(back.body)).toBe(201);
    expect((await api.get(`/incidents/${inc.id}`)).body).toMatchObject({ id: inc.id, status: "false_positive", memory_ids: [s.memory], note: "fine" });
  });

  it("another project's incident and scan answer like unknown ids; a read key lists but cannot scan", async () => {
    const a = await project();
    const b = await project();
    const s = await missedScene(a.api);
    const [inc] = await waitFor(a.api, `/incidents?conversation_id=${s.conversation}`, 1);
    const scan = await a.api.post("/incidents/scan", { conversation_id: s.conversation });
    for (const r of [
      await b.api.get(`/incidents/${inc.id}`),
      await b.api.patch(`/incidents/${inc.id}`, { status: "resolved" }),
      await b.api.get(`/incidents/scan/${scan.body.id}`),
      await b.api.post("/incidents/scan", { conversation_id: s.conversation }),
    ]) {
      expect(r.status).toBe(404);
      expect(JSON.stringify(r.body)).not.toContain(s.user);
    }
    expect((await b.api.get("/incidents")).body.data).toEqual([]);
    expect((await b.api.get("/incidents/summary")).body.open_high).toBe(0);
    expect((await a.readOnly.get("/incidents")).body.data).toHaveLength(1);
    expect((await a.readOnly.post("/incidents/scan", {})).status).toBe(403);
    expect((await a.api.get(`/incidents/${inc.id}`)).body.status).toBe("open");
  });
});
