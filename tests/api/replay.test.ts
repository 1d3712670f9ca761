import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient } from "../helpers/api-client";
import { sharedProject, type SharedProject } from "../helpers/shared-app";
import type { Owner } from "../helpers/owner";
import { DATABASE_KINDS, itOnOneKind } from "../helpers/test-database";

// POST /replay (issue 22, part 3): a past turn as POST /context would have answered it then,
// why each memory was in or out, and the exact difference a variant makes. Each test makes
// its own project, so memories, profiles and logged retrievals of one never reach another.

type Api = ReturnType<typeof apiClient>;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const SYSTEM = "You are the travel assistant.";
// Ranking by importance alone: scores are the importances, so ranks are known by hand.
const BY_IMPORTANCE = { similarity: 0, recency: 0, importance: 1 };
const facts = (contents: string[]) => `${SYSTEM}\n\n# USER MEMORY\n\n## Known Facts\n${contents.map((c) => `- ${c}`).join("\n")}`;

describe.each(DATABASE_KINDS)("replay on %s", (kind) => {
  // Refusals decided before any write, scopes and the OpenAPI text run on one kind (the rule is in
  // tests/helpers/test-database.ts); the rest, on both.
  const oneKind = itOnOneKind(kind);
  let server: SharedProject;
  let owner: Owner;
  let n = 0;
  const project = async () => {
    const p = await owner.post("/projects", { name: `replay ${++n}` });
    return apiClient(server.url, { authorization: `Bearer ${await owner.key(`k${n}`, ["read", "write", "admin"], p.id)}` });
  };

  beforeAll(async () => {
    server = await sharedProject(kind, "replay");
    owner = server.owner;
  }, 240_000);
  afterAll(async () => server?.stop());

  /** A user with four facts (importance 0.9 .. 0.6), a profile (k = 3, by importance), a conversation of three turns. */
  async function scene(api: Api) {
    const user = `u-${randomUUID().slice(0, 8)}`;
    const contents = ["Allergic to peanuts", "Lives in Lisbon", "Works as a night nurse", "Drinks oat milk coffee"];
    const ids: string[] = [];
    for (const [i, content] of contents.entries()) {
      const r = await api.post(`/users/${user}/memories`, { memory_type: "fact", content, importance_score: 0.9 - i * 0.1 });
      expect(r.status).toBe(201);
      ids.push(r.body.id);
    }
    const profile = await api.post("/profiles/travel-bot/versions", {
      settings: { strategy: { type: "message_window", max_attached_message_count: 10 }, system_prompt: SYSTEM, memory: { k: 3, weights: BY_IMPORTANCE } },
    });
    expect(profile.status).toBe(201);
    await sleep(5);
    const c = await api.post("/conversations", { app_id: "travel-bot", end_user_id: user, name: "trip" });
    const t = [randomUUID(), randomUUID(), randomUUID()];
    const batch = await api.post(`/conversations/${c.body.id}/messages/batch`, {
      messages: [
        { id: t[0], parent_message_id: null, query: "Plan a day in Porto", answer: "Start at the Ribeira." },
        { id: t[1], parent_message_id: t[0], query: "Where can I eat?", answer: "Try a francesinha." },
        { id: t[2], parent_message_id: t[1], query: "Anything I should avoid?", answer: "Avoid satay sauce." },
      ],
    });
    expect(batch.status).toBe(201);
    await sleep(5);
    return { user, ids, contents, conversation: c.body.id as string, turns: t };
  }

  it("the newest turn replayed at the current instant is byte for byte what POST /context answers", async () => {
    const api = await project();
    const s = await scene(api);
    // A search that marks a memory accessed: the replay measures its decay from the replayed instant.
    const hit = await api.post(`/users/${s.user}/memories/search`, { query: "Allergic to peanuts", k: 1 });
    expect(hit.body.access_recorded).toBe(true);
    await sleep(5);
    const ctx = await api.post("/context", {
      user_id: s.user,
      conversation_id: s.conversation,
      leaf_message_id: s.turns[1],
      query: "Anything I should avoid?",
      system_prompt: SYSTEM,
      strategy: { type: "message_window", max_attached_message_count: 10 },
      memory: { k: 3, weights: BY_IMPORTANCE, dry_run: true },
    });
    expect(ctx.status).toBe(200);
    const r = await api.post("/replay", { conversation_id: s.conversation, message_id: s.turns[2], as_of: new Date().toISOString() });
    expect(r.status).toBe(200);
    // A replay logs nothing: its retrieval_id is null, the rest is the same bytes.
    expect(JSON.stringify(r.body.context)).toBe(JSON.stringify({ ...ctx.body, retrieval_id: null }));
    // The request it answers, sent to /context, answers the same.
    const again = await api.post("/context", r.body.request);
    expect(JSON.stringify({ ...again.body, retrieval_id: null })).toBe(JSON.stringify(r.body.context));
    expect(r.body.context.messages[0].content).toBe(facts(s.contents.slice(0, 3)));
    const accessed = r.body.why.find((w: { memory_id: string }) => w.memory_id === hit.body.data[0].memory.id);
    const days = (Date.parse(r.body.as_of) - Date.parse(accessed.state.last_accessed_at)) / 86_400_000;
    expect(accessed.state.access_count).toBe(1);
    expect(accessed.score_parts.time_decay).toBeCloseTo(Math.exp(-days / 30), 12);
    expect(r.body.profile).toMatchObject({ source: "profile", app_id: "travel-bot", version: 1, overridden: [] });
    expect(r.body.turn).toMatchObject({ message_id: s.turns[2], query: "Anything I should avoid?", index: 2, history_leaf_message_id: s.turns[1] });
    // The logged retrieval of /context around this turn, beside the replayed one: the same hits.
    expect(r.body.logged.retrieval_id).toBe(ctx.body.retrieval_id);
    expect(r.body.logged.hits.map((h: { memory_id: string }) => h.memory_id)).toEqual(s.ids.slice(0, 3));
    expect(r.body.logged.differences).toEqual([]);
  });

  it("memories edited, merged and archived after the turn: the replay shows the prompt of then", async () => {
    const api = await project();
    const s = await scene(api);
    // After the turns: an edit, a merge, an archive, a new memory, a new profile version.
    const m0 = await api.get(`/memories/${s.ids[0]}`);
    expect((await api.patch(`/memories/${s.ids[0]}`, { version: m0.body.version, content: "Allergic to peanuts and tree nuts" })).status).toBe(200);
    const merged = await api.post("/memories/merge", { ids: [s.ids[1], s.ids[2]], content: "Lives in Lisbon and works nights as a nurse" });
    expect(merged.status).toBe(201);
    expect((await api.post(`/memories/${s.ids[3]}/archive`, {})).status).toBe(200);
    const later = await api.post(`/users/${s.user}/memories`, { memory_type: "fact", content: "Plays the cello", importance_score: 1 });
    // Made after the turn, then edited and archived: nothing of it existed then.
    const gone = await api.post(`/users/${s.user}/memories`, { memory_type: "fact", content: "Takes the bus to work", importance_score: 0.1 });
    expect((await api.patch(`/memories/${gone.body.id}`, { version: gone.body.version, content: "Takes the tram to work" })).status).toBe(200);
    expect((await api.post(`/memories/${gone.body.id}/archive`, {})).status).toBe(200);
    await api.post("/profiles/travel-bot/versions", { settings: { strategy: { type: "message_window" }, system_prompt: "Changed.", memory: { k: 1 } } });

    // Today's prompt is another one.
    const now = await api.post("/context", {
      user_id: s.user, conversation_id: s.conversation, leaf_message_id: s.turns[1], query: "Anything I should avoid?",
      system_prompt: SYSTEM, strategy: { type: "message_window" }, memory: { k: 3, weights: BY_IMPORTANCE, dry_run: true },
    });
    expect(now.body.messages[0].content).toBe(facts(["Plays the cello", "Allergic to peanuts and tree nuts", "Lives in Lisbon and works nights as a nurse"]));

    const r = await api.post("/replay", { conversation_id: s.conversation, message_id: s.turns[2], explain: [later.body.id, merged.body.id] });
    expect(r.status).toBe(200);
    expect(r.body.profile.version).toBe(1);
    expect(r.body.context.messages).toEqual([
      { role: "system", content: facts(["Allergic to peanuts", "Lives in Lisbon", "Works as a night nurse"]) },
      { role: "user", content: "Plan a day in Porto" },
      { role: "assistant", content: "Start at the Ribeira." },
      { role: "user", content: "Where can I eat?" },
      { role: "assistant", content: "Try a francesinha." },
      { role: "user", content: "Anything I should avoid?" },
    ]);
    expect(r.body.context.memories.map((m: { id: string }) => m.id)).toEqual(s.ids.slice(0, 3));
    const why = Object.fromEntries(r.body.why.map((w: { memory_id: string }) => [w.memory_id, w]));
    expect(why[s.ids[0]]).toMatchObject({ in_prompt: true, rule: "included", rank: 1, score: 0.9, state: { content: "Allergic to peanuts", status: "active" } });
    expect(why[s.ids[0]].score_parts).toMatchObject({ importance: 0.9, importance_term: 0.9, similarity_term: 0, recency_term: 0 });
    // Cut by k: rank 4 of k = 3, with its state and score of then.
    expect(why[s.ids[3]]).toMatchObject({ in_prompt: false, rule: "k", rank: 4, state: { content: "Drinks oat milk coffee", status: "active" } });
    expect(why[s.ids[3]].score).toBeCloseTo(0.6, 12);
    expect(why[later.body.id]).toMatchObject({ in_prompt: false, rule: "created_after_turn", rank: null, state: null });
    expect(why[merged.body.id].rule).toBe("created_after_turn");
    // What changed since the turn, for the UI's marks: the edit, the merge (its sources archived), the archive, two new memories.
    const since = Object.fromEntries(r.body.changes_since.memories.map((c: { memory_id: string; changes: string[] }) => [c.memory_id, c]));
    expect(since[s.ids[0]]).toMatchObject({ changes: ["edited_since"], content: "Allergic to peanuts and tree nuts", content_then: "Allergic to peanuts", status: "active" });
    expect(since[s.ids[1]].changes).toEqual(["archived_since"]);
    expect(since[s.ids[2]].changes).toEqual(["archived_since"]);
    expect(since[s.ids[3]]).toMatchObject({ changes: ["archived_since"], content_then: null, status: "archived" });
    expect(since[later.body.id].changes).toEqual(["created_later"]);
    expect(since[merged.body.id].changes).toEqual(["created_later"]);
    expect(since[gone.body.id]).toMatchObject({ changes: ["created_later", "archived_since"], content: "Takes the tram to work", content_then: null, status: "archived" });
    expect(r.body.changes_since.memories).toHaveLength(7);
    expect(r.body.changes_since.truncated).toBe(false);

    // The first turn: no history at all (not the newest thread's).
    const first = await api.post("/replay", { conversation_id: s.conversation, message_id: s.turns[0] });
    expect(first.body.context.messages.map((m: { content: string }) => m.content)).toEqual([facts(s.contents.slice(0, 3)), "Plan a day in Porto"]);
    expect(first.body.context.history_source).toBe("conversation");
  });

  it("a turn of another branch replays its own thread", async () => {
    const api = await project();
    const s = await scene(api);
    const side = randomUUID();
    await api.post(`/conversations/${s.conversation}/messages/batch`, { messages: [{ id: side, parent_message_id: s.turns[0], query: "What about Braga?", answer: "Braga is lovely." }] });
    const r = await api.post("/replay", { conversation_id: s.conversation, message_id: s.turns[2] });
    expect(r.body.context.messages.slice(1).map((m: { content: string }) => m.content)).toEqual([
      "Plan a day in Porto", "Start at the Ribeira.", "Where can I eat?", "Try a francesinha.", "Anything I should avoid?",
    ]);
    const b = await api.post("/replay", { conversation_id: s.conversation, message_id: side });
    expect(b.body.context.messages.slice(1).map((m: { content: string }) => m.content)).toEqual(["Plan a day in Porto", "Start at the Ribeira.", "What about Braga?"]);
  });

  it("legacy UUID_NIL parents follow the row before", async () => {
    // The turn, its history leaf and the thread's length are read in one statement (lib/replay/load-turn.ts).
    const api = await project();
    const s = await scene(api);
    const nil = "00000000-0000-0000-0000-000000000000";
    const [l1, l2] = [randomUUID(), randomUUID()];
    for (const m of [
      { id: l1, parent_message_id: nil, query: "Is the metro open late?", answer: "Until 1 am." },
      { id: l2, parent_message_id: nil, query: "And on Sundays?", answer: "Until midnight." },
    ]) {
      expect((await api.post(`/conversations/${s.conversation}/messages/batch`, { messages: [m] })).status).toBe(201);
      await sleep(5);
    }
    const r = await api.post("/replay", { conversation_id: s.conversation, message_id: l2 });
    expect(r.status).toBe(200);
    // UUID_NIL: the row just before (l1), whose UUID_NIL parent is the row before it, and so on to the first turn.
    expect(r.body.turn).toMatchObject({ index: 4, history_leaf_message_id: l1 });
    expect(r.body.context.messages.slice(1).map((m: { content: string }) => m.content)).toEqual([
      "Plan a day in Porto", "Start at the Ribeira.", "Where can I eat?", "Try a francesinha.", "Anything I should avoid?", "Avoid satay sauce.",
      "Is the metro open late?", "Until 1 am.", "And on Sundays?",
    ]);
  });

  it("a replay is a read: a profile that offloads shows its refs and stores nothing", async () => {
    const api = await project();
    const s = await scene(api);
    // Version 2: summary_buffer from the second message on, offloading every kept message over 50 tokens.
    const v2 = await api.post("/profiles/travel-bot/versions", {
      settings: { strategy: { type: "summary_buffer", msg_threshold: 1, last_keep: 10, offload_tokens: 50 }, system_prompt: SYSTEM, memory: { k: 3, weights: BY_IMPORTANCE } },
    });
    expect(v2.body.version).toBe(2);
    const long = `Please remember all of this: ${Array.from({ length: 60 }, (_, i) => `item ${i} is blue`).join(", ")}.`;
    const [t0, t1] = [randomUUID(), randomUUID()];
    const c = await api.post("/conversations", { app_id: "travel-bot", end_user_id: s.user, name: "long" });
    await api.post(`/conversations/${c.body.id}/messages/batch`, {
      messages: [
        { id: t0, parent_message_id: null, query: long, answer: "Noted." },
        { id: t1, parent_message_id: t0, query: "And now?", answer: "Still blue." },
      ],
    });
    const r = await api.post("/replay", { conversation_id: c.body.id, message_id: t1, profile_version: 2, variants: [{ label: "k1", overrides: { memory: { k: 1 } } }] });
    expect(r.status).toBe(200);
    const refs = [r.body.context, ...r.body.variants.map((v: { context: unknown }) => v.context)]
      .flatMap((ctx: { messages: { content: string }[] }) => ctx.messages)
      .map((m) => /\[Offloaded \d+ tokens; ref ([0-9a-f-]{36})\]/.exec(m.content)?.[1])
      .filter(Boolean);
    expect(refs.length).toBeGreaterThanOrEqual(2); // the long question, in the replay and in its variant
    for (const ref of refs) expect((await api.get(`/offloaded/${ref}`)).status).toBe(404);
  });

  it("a variant identical to the original has an empty diff; k and weights give the diff computed by hand", async () => {
    const api = await project();
    const s = await scene(api);
    const r = await api.post("/replay", {
      conversation_id: s.conversation,
      message_id: s.turns[2],
      overrides: { memory: { k: 2 } },
      variants: [
        { label: "same" },
        { label: "same, spelled out", overrides: { memory: { k: 2, weights: BY_IMPORTANCE } } },
        { label: "k = 3", overrides: { memory: { k: 3 } } },
        { label: "recency only", overrides: { memory: { weights: { recency: 1, importance: 0 } } } },
      ],
    });
    expect(r.status).toBe(200);
    expect(r.body.profile.overridden).toEqual(["memory.k"]);
    const [same, spelled, k3, recency] = r.body.variants;
    const empty = { empty: true, messages: { added: [], dropped: [], changed: [] }, memories: { in: [], out: [] }, tokens: {} };
    expect(same.diff).toEqual(empty);
    expect(spelled.diff).toEqual(empty);
    expect(r.body.context.messages[0].content).toBe(facts(s.contents.slice(0, 2)));

    // k 2 -> 3: the third by importance comes in at rank 3; only the system message and the memory tokens change.
    const o = r.body.context.sections;
    const v = k3.context.sections;
    expect(k3.diff).toEqual({
      empty: false,
      messages: {
        added: [],
        dropped: [],
        changed: [{ index: 0, original_index: 0, section: "system", before: { role: "system", content: facts(s.contents.slice(0, 2)) }, after: { role: "system", content: facts(s.contents.slice(0, 3)) } }],
      },
      memories: { in: [{ memory_id: s.ids[2], rank: 3, original_rank: 3, original_rule: "k" }], out: [] },
      tokens: {
        memories: { original: o.memories, variant: v.memories, delta: v.memories - o.memories },
        free: { original: o.free, variant: v.free, delta: o.memories - v.memories },
        total: { original: o.total, variant: v.total, delta: v.memories - o.memories },
      },
    });
    expect(v.memories).toBeGreaterThan(o.memories);

    // Weights {0, 1, 0}: every memory scores the same decay (never accessed), ties go by id:
    // the two smallest ids are in, ranked in id order.
    const byId = [...s.ids].sort();
    const importanceRank = (id: string) => s.ids.indexOf(id) + 1;
    const top = byId.slice(0, 2);
    const orig = s.ids.slice(0, 2);
    // One weight overridden changes that weight only (the others stay the profile's).
    expect(recency.settings.memory.weights).toEqual({ similarity: 0, recency: 1, importance: 0 });
    expect(recency.profile.overridden).toEqual(["memory.k", "memory.weights.recency", "memory.weights.importance"]);
    expect(recency.context.memories.map((m: { id: string }) => m.id)).toEqual(top);
    expect(recency.diff.memories).toEqual({
      in: top.filter((id) => !orig.includes(id)).map((id) => ({ memory_id: id, rank: byId.indexOf(id) + 1, original_rank: importanceRank(id), original_rule: "k" })),
      out: orig.filter((id) => !top.includes(id)).map((id) => ({ memory_id: id, original_rank: importanceRank(id), rank: byId.indexOf(id) + 1, rule: "k" })),
    });
    const content = (id: string) => s.contents[s.ids.indexOf(id)];
    const changedPrompt = facts(top.map(content)) !== facts(orig.map(content));
    expect(recency.diff.messages.changed).toEqual(
      changedPrompt ? [{ index: 0, original_index: 0, section: "system", before: { role: "system", content: facts(orig.map(content)) }, after: { role: "system", content: facts(top.map(content)) } }] : [],
    );
    expect(recency.diff.empty).toBe(!changedPrompt);
  });

  oneKind("bad input answers 4xx naming the field; unknown turn 404", async () => {
    const api = await project();
    const s = await scene(api);
    const cases: [unknown, string][] = [
      [{ conversation_id: s.conversation, message_id: "turn-3" }, "message_id"],
      [{ conversation_id: s.conversation }, "message_id"],
      [{ conversation_id: s.conversation, message_id: s.turns[2], variants: [{ overrides: { memory: { k: 0 } } }] }, "variants[0].overrides.memory.k"],
      [{ conversation_id: s.conversation, message_id: s.turns[2], overrides: { strategy: { type: "sliding" } } }, "overrides.strategy.type"],
      [{ conversation_id: s.conversation, message_id: s.turns[2], as_of: "yesterday" }, "as_of"],
      [{ conversation_id: s.conversation, message_id: s.turns[2], user_id: "someone-else" }, "user_id"],
    ];
    for (const [body, field] of cases) {
      const r = await api.post("/replay", body);
      expect(r.status, JSON.stringify(body)).toBe(422);
      expect(r.body.error.details[0].field).toBe(field);
    }
    const json = await api.raw("POST", "/replay", "{");
    expect(json.status).toBe(400);
    expect(json.body.error.details[0].field).toBe("body");
    const unknown = await api.post("/replay", { conversation_id: s.conversation, message_id: randomUUID() });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.details[0].field).toBe("message_id");
    const version = await api.post("/replay", { conversation_id: s.conversation, message_id: s.turns[2], profile_version: 7 });
    expect(version.status).toBe(404);
    expect(version.body.error.details[0].field).toBe("version");
  });

  it("another project's conversation and turn are answered as unknown ones", async () => {
    const a = await project();
    const b = await project();
    const s = await scene(a);
    const blank = (r: { status: number; body: any }) => ({ status: r.status, body: JSON.parse(JSON.stringify(r.body).replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, "<id>")) });
    const theirs = await b.post("/replay", { conversation_id: s.conversation, message_id: s.turns[2] });
    const fresh = await b.post("/replay", { conversation_id: randomUUID(), message_id: randomUUID() });
    expect(theirs.status).toBe(404);
    expect(blank(theirs)).toEqual(blank(fresh));
    // B's own conversation with A's turn id: a message it does not have.
    const c = await b.post("/conversations", { app_id: "travel-bot", end_user_id: s.user });
    const own = await b.post("/replay", { conversation_id: c.body.id, message_id: s.turns[2] });
    expect(own.status).toBe(404);
    expect(own.body.error.details[0].field).toBe("message_id");
    // A's memory explained in B's replay is unknown, as any fresh id.
    const turn = randomUUID();
    await b.post(`/conversations/${c.body.id}/messages/batch`, { messages: [{ id: turn, query: "hi", answer: "hello" }] });
    const why = await b.post("/replay", { conversation_id: c.body.id, message_id: turn, explain: [s.ids[0]] });
    expect(why.status).toBe(200);
    expect(why.body.why.find((w: { memory_id: string }) => w.memory_id === s.ids[0])).toMatchObject({ rule: "unknown_memory", state: null });
  });
});
