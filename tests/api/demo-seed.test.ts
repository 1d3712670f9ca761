import { describe, expect, it } from "vitest";
import { DEMO_IDS, demoConversations, INCIDENTS_APP } from "@/lib/demo/demo-data";
import { DEMO_MEMORIES } from "@/lib/demo/demo-memories";
import { toolAgentDemo } from "@/lib/demo/demo-tool-agent";
import { apiClient } from "../helpers/api-client";
import { sharedProject } from "../helpers/shared-app";
import { DATABASE_KINDS } from "../helpers/test-database";

// POST /api/v1/project/demo: the start-up demo seed (lib/demo) written into the caller's own
// empty project, as an admin asks for it. Each test makes the projects it seeds (a project is
// seeded once): the shared server's projects are never the default one the start-up seed fills.

const ANA = encodeURIComponent("ana@example.com");
const DAY_MS = 86_400_000;
const DEMO_CONVERSATIONS = [...demoConversations(Date.now()), toolAgentDemo(Date.now())];

describe.each(DATABASE_KINDS)("loading the demo data into a project, on %s", (kind) => {
  const project = async (name: string) => {
    const p = await sharedProject(kind, name);
    return { ...p, api: apiClient(p.url, p.headers) };
  };
  const counts = async (api: ReturnType<typeof apiClient>) => {
    const conversations = await api.get("/conversations?limit=100");
    const memories = await api.get(`/users/${ANA}/memories?limit=100&status=all`);
    expect(conversations.status).toBe(200);
    expect(memories.status).toBe(200);
    return { conversations: conversations.body.data.length as number, anasMemories: memories.body.data.length as number };
  };

  it("fills an empty project as the start-up seed does: conversations, back-dated memories with their retrievals, review item, profile and incidents", async () => {
    const p = await project("demo-seed");
    const r = await p.api.post("/project/demo");
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(r.body).toEqual({
      conversations: DEMO_CONVERSATIONS.length,
      turns: DEMO_CONVERSATIONS.reduce((n, d) => n + d.turns.length, 0),
      memories: DEMO_MEMORIES.length,
    });
    const convs = (await p.api.get("/conversations?limit=100")).body.data as { id: string; turn_count: number }[];
    expect(convs.map((c) => c.id).sort()).toEqual(DEMO_CONVERSATIONS.map((d) => d.conversation.id).sort());
    expect(convs.find((c) => c.id === DEMO_IDS.long)!.turn_count).toBe(DEMO_CONVERSATIONS.find((d) => d.conversation.id === DEMO_IDS.long)!.turns.length);

    // A memory as the seed leaves it: learned 60 days back at most, its access count the number of its logged retrievals.
    const memories = (await p.api.get(`/users/${ANA}/memories?limit=100&status=all`)).body.data as { id: string; content: string; access_count: number; created_at: string; last_accessed_at: string | null }[];
    const budget = memories.find((m) => m.content === "Daily travel budget is 120 euros")!;
    const spec = DEMO_MEMORIES.find((m) => m.content === budget.content)!;
    expect(budget.access_count).toBe(spec.accessCount);
    expect(Date.now() - Date.parse(budget.created_at)).toBeGreaterThan((spec.createdDaysAgo - 1) * DAY_MS);
    const accesses = (await p.api.get(`/memories/${budget.id}/accesses`)).body.data as { created_at: string }[];
    expect(accesses.length).toBe(spec.accessCount);
    expect(accesses.map((a) => a.created_at).sort().at(-1)).toBe(budget.last_accessed_at);
    // The near duplicate waits in the review queue; the contradicts link is in a memory's relations.
    const review = await p.api.get(`/users/${encodeURIComponent("max.k@example.com")}/review`);
    expect(review.status).toBe(200);
    expect(review.body.data.length).toBeGreaterThan(0);
    const profile = await p.api.get(`/profiles/${INCIDENTS_APP}`);
    expect(profile.status, JSON.stringify(profile.body)).toBe(200);
    const incidents = await p.api.get("/incidents");
    expect(incidents.status).toBe(200);
    expect(incidents.body.data.length).toBeGreaterThan(0);
  }, 120_000);

  it("never touches another project: the other stays empty and can load the same demo ids itself", async () => {
    const [a, b] = await Promise.all([project("demo-seed-a"), project("demo-seed-b")]);
    expect((await a.api.post("/project/demo")).status).toBe(201);
    expect(await counts(b.api)).toEqual({ conversations: 0, anasMemories: 0 });
    // A key of one project seeds its own project only, whichever project a header names.
    const cross = apiClient(a.url, { ...a.headers, "x-memscope-project": b.project });
    expect((await cross.post("/project/demo")).status).not.toBe(201);
    expect(await counts(b.api)).toEqual({ conversations: 0, anasMemories: 0 });
    const second = await b.api.post("/project/demo");
    expect(second.status, JSON.stringify(second.body)).toBe(201);
    expect(await counts(b.api)).toEqual(await counts(a.api));
  }, 120_000);

  it("answers 409 project_not_empty, writing nothing, when the project holds a memory or was seeded already; two loads at once make one", async () => {
    const held = await project("demo-seed-held");
    expect((await held.api.post(`/users/${ANA}/memories`, { memory_type: "fact", content: "Already here", actor: "api" })).status).toBe(201);
    const refused = await held.api.post("/project/demo");
    expect(refused.status, JSON.stringify(refused.body)).toBe(409);
    expect(refused.body.error).toMatchObject({ code: "project_not_empty", details: [{ field: "project", message: "has memories" }] });
    expect(await counts(held.api)).toEqual({ conversations: 0, anasMemories: 1 });

    const racing = await project("demo-seed-race");
    const both = await Promise.all([racing.api.post("/project/demo"), racing.api.post("/project/demo")]);
    expect(both.map((r) => r.status).sort()).toEqual([201, 409]);
    expect(both.find((r) => r.status === 409)!.body.error.code).toBe("project_not_empty");
    expect(await counts(racing.api)).toEqual({ conversations: DEMO_CONVERSATIONS.length, anasMemories: DEMO_MEMORIES.filter((m) => m.user === "ana@example.com").length });
  }, 120_000);

  it("needs the admin scope: a read key and a read-write key get 403 and the project stays empty", async () => {
    const p = await project("demo-seed-scope");
    for (const scopes of [["read"], ["read", "write"]]) {
      const key = await p.owner.key(`demo ${scopes.join("+")}`, scopes, p.project);
      const r = await apiClient(p.url, { authorization: `Bearer ${key}` }).post("/project/demo");
      expect(r.status, JSON.stringify(r.body)).toBe(403);
      expect(r.body.error.code).toBe("missing_scope");
    }
    expect(await counts(p.api)).toEqual({ conversations: 0, anasMemories: 0 });
  }, 60_000);
});
