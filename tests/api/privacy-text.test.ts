import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DATABASE_KINDS } from "../helpers/test-database";
import { captureSpan, ERASURE_WRITES, rowsWith, ServedDatabase, type Snapshot } from "./privacy-fixture";

// Issue 24, text erasure: a phone number in three users' turns and memories is replaced by
// [erased] everywhere, the changed memories are embedded again, and nothing else changes.

describe.each(DATABASE_KINDS)("text erasure of a phone number across three users, on %s", (kind) => {
  const phone = `+1 555 ${Math.floor(1000 + Math.random() * 8999)} 77`;
  let t: ServedDatabase;
  let before: Snapshot;
  let after: Snapshot;
  let dry: any;
  let run: any;
  const users = [1, 2, 3, 4].map((i) => `u${i}-${randomUUID().slice(0, 6)}`);
  const memories: Record<string, string> = {};
  let twinId = "";
  let erasedMemory: any;
  // The one-user scope case: made and erased before the phone's "before" snapshot (it holds no
  // phone), so that no request follows the last snapshot and the embedded server is not
  // started again only for it.
  const scope: Record<string, any> = {};

  beforeAll(async () => {
    t = await ServedDatabase.start(kind);
    for (const [i, u] of users.entries()) {
      const withPhone = i < 3;
      const c = (await t.api.post("/conversations", { app_id: "a", end_user_id: u, name: "support" })).body;
      await t.api.post(`/conversations/${c.id}/messages/batch`, {
        messages: [{ query: withPhone ? `call me at ${phone} please` : "no number here", answer: withPhone ? `I will call ${phone}.` : "ok" }],
      });
      const m = await t.api.post(`/users/${u}/memories`, {
        memory_type: "fact",
        content: withPhone ? `Phone number is ${phone} (mobile)` : "Has no phone",
        structured_data: withPhone ? { phone } : null,
      });
      memories[u] = m.body.id;
      // The first user's agent also sent the number to its model, captured over OTLP (only in
      // the span's system instructions: the turn the span makes holds no number).
      if (i === 0) {
        const span = await captureSpan(t.server.url, {
          conversationId: c.id,
          userId: u,
          system: `The customer's phone is ${phone}`,
          input: [{ role: "user", parts: [{ type: "text", content: "what is my number?" }] }],
          output: [{ role: "assistant", parts: [{ type: "text", content: "I have it." }] }],
        });
        expect(span.status).toBe(200);
      }
    }
    scope.other = `+44 20 ${Math.floor(1000 + Math.random() * 8999)} 0000`;
    for (const u of users.slice(0, 2)) await t.api.post(`/users/${u}/memories`, { memory_type: "fact", content: `Office line ${scope.other}` });
    scope.run = await t.api.post("/erase/text", { strings: [scope.other], user_id: users[0], confirm: true });
    scope.list = await t.api.get(`/users/${users[1]}/memories`);
    scope.nobody = await t.api.post("/erase/text", { strings: [scope.other], user_id: `nobody-${randomUUID()}`, dry_run: true });
    scope.bad = await t.api.post("/erase/text", { strings: ["ab"], dry_run: true });

    dry = (await t.api.post("/erase/text", { strings: [phone], dry_run: true })).body;
    before = await t.snapshot();
    run = await t.api.post("/erase/text", { strings: [phone], confirm: true });
    // The same text as the erased memories', saved afresh: its vector is what re-embedding must give.
    twinId = (await t.api.post(`/users/${users[3]}/memories`, { memory_type: "fact", content: "Phone number is [erased] (mobile)" })).body.id;
    erasedMemory = (await t.api.get(`/memories/${memories[users[0]]}`)).body;
    after = await t.snapshot({ restart: false });
  }, 600_000);
  afterAll(async () => {
    await t?.stop();
  });

  it("the dry run lists the matches and changes nothing", () => {
    const byColumn = Object.fromEntries(dry.matches.map((m: any) => [`${m.table}.${m.column}`, m.rows]));
    expect(byColumn["messages.query"]).toBe(3);
    expect(byColumn["messages.answer"]).toBe(3);
    expect(byColumn["memories.content"]).toBe(3);
    expect(byColumn["memories.structured_data"]).toBe(3);
    expect(byColumn["memory_events.after"]).toBe(3);
    // Captured prompts keep their messages once per conversation (captured_messages).
    expect(byColumn["captured_messages.body"]).toBe(1);
    expect(dry.receipt).toBeNull();
  });

  it("every occurrence is gone, replaced by [erased]; the receipt's probe is empty", () => {
    expect(run.status).toBe(200);
    expect(run.body.receipt.probes.passed).toBe(true);
    expect(run.body.memories_reembedded).toBe(3);
    expect(rowsWith(after, phone)).toEqual({});
    expect(erasedMemory.content).toBe("Phone number is [erased] (mobile)");
    expect(erasedMemory.structured_data).toEqual({ phone: "[erased]" });
  });

  it("the changed memories are embedded again (the vector of the new text)", () => {
    const vec = (s: Snapshot, id: string) => s.get("memory_embeddings")!.map((r) => JSON.parse(r)).find((r) => r.memory_id === id)?.embedding;
    const twin = vec(after, twinId);
    expect(twin).toBeTruthy();
    for (const u of users.slice(0, 3)) {
      expect(vec(after, memories[u])).toEqual(twin);
      expect(vec(before, memories[u])).not.toEqual(twin);
    }
  });

  it("nothing else changed", () => {
    const hadPhone = new Set<string>();
    const conversations = new Set<string>();
    for (const [, rows] of before) {
      for (const r of rows.filter((x) => x.includes(phone)).map((x) => JSON.parse(x))) {
        hadPhone.add(r.id ?? r.span_id);
        if (r.conversation_id) conversations.add(r.conversation_id);
      }
    }
    for (const [t, rows] of after) {
      if (ERASURE_WRITES.has(t)) continue;
      const had = new Set(before.get(t) ?? []);
      for (const r of rows.filter((x) => !had.has(x)).map((x) => JSON.parse(x))) {
        const allowed =
          hadPhone.has(r.id ?? r.span_id) ||
          (t === "conversations" && conversations.has(r.id)) ||
          (t === "memory_embeddings" && (hadPhone.has(r.memory_id) || r.memory_id === twinId)) ||
          r.id === twinId ||
          r.memory_id === twinId ||
          ((t === "memory_user_counts" || t === "memory_embedding_counts") && r.user_id === users[3]);
        expect(allowed, `${t} row changed: ${JSON.stringify(r).slice(0, 200)}`).toBe(true);
      }
      // Nothing went either.
      expect(rows.length, t).toBeGreaterThanOrEqual(before.get(t)?.length ?? 0);
    }
  });

  it("a scope of one user erases only that user's rows", () => {
    expect(scope.run.status).toBe(200);
    expect(scope.run.body.rows["memories.content"]).toBe(1);
    expect(scope.list.body.data.some((m: any) => m.content.includes(scope.other))).toBe(true);
    expect(scope.nobody.status).toBe(404);
    expect(scope.bad.status).toBe(422);
  });
});
