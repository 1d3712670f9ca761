import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DATABASE_KINDS } from "../helpers/test-database";
import { ERASURE_WRITES, expectOthersUntouched, makePerson, rowsWith, ServedDatabase, type Person, type Snapshot } from "./privacy-fixture";

// Issue 24: a person's data exported, erased with a receipt, imported back. A marker string
// sits in every kind of field of one user; after the erasure no column of any table holds
// it, every other row is byte-identical, and the export imports back to the same rows.

const tag = () => randomUUID().replace(/-/g, "").slice(0, 10);

describe.each(DATABASE_KINDS)("export, erase and import one person, on %s", (kind) => {
  let t: ServedDatabase;
  let alice: Person;
  let others: Person[];
  let before: Snapshot;
  let after: Snapshot;
  let exported: any;
  let dry: any;
  let erased: any;

  beforeAll(async () => {
    t = await ServedDatabase.start(kind);
    const m = tag();
    alice = await makePerson(t.server.url, `alice-MRK${m}`, `MRK${m}A`);
    others = [await makePerson(t.server.url, `bob-${tag()}`, `OTH${tag()}B`), await makePerson(t.server.url, `carol-${tag()}`, `OTH${tag()}C`)];
    exported = (await t.api.get(`/users/${alice.userId}/export`)).body;
    dry = (await t.api.post(`/users/${alice.userId}/erase`, { dry_run: true })).body;
    before = await t.snapshot();
    erased = await t.api.post(`/users/${alice.userId}/erase`, { confirm: true });
    after = await t.snapshot();
  }, 600_000);
  afterAll(async () => {
    await t?.stop();
  });

  it("the generated data holds the marker in every kind of field", () => {
    const where = rowsWith(before, alice.marker);
    for (const t of ["conversations", "messages", "message_files", "node_memories", "memories", "memory_events", "memory_relations", "memory_retrievals", "offloaded_contents", "eval_cases", "eval_run_cases", "captured_messages", "otlp_pending"]) {
      expect(where[t], `marker in ${t}`).toBeGreaterThan(0);
    }
    expect(dry.counts.memory_review_items).toBeGreaterThan(0);
    expect(dry.counts.memory_embeddings).toBeGreaterThan(0);
    expect(dry.counts.memory_retrieval_hits).toBeGreaterThan(0);
  });

  it("the export holds every table of the user's data", () => {
    expect(exported.format).toBe("memscope.user-export");
    for (const t of ["conversations", "messages", "message_files", "node_memories", "memories", "memory_events", "memory_relations", "memory_retrievals", "memory_review_items", "offloaded_contents", "captured_spans", "captured_messages"]) {
      expect(exported.tables[t]?.length, t).toBeGreaterThan(0);
    }
    expect(JSON.stringify(exported)).not.toContain(others[0].marker);
  });

  it("erasing needs confirm, and the dry run changed nothing", async () => {
    const r = await t.api.post(`/users/${alice.userId}/erase`, {});
    // Already erased by now: the same 404 as an unknown user.
    expect(r.status).toBe(404);
    const other = await t.api.post(`/users/${others[1].userId}/erase`, {});
    expect(other.status).toBe(422);
    expect(other.body.error.code).toBe("confirmation_required");
    expect(dry.dry_run).toBe(true);
    expect(dry.receipt).toBeNull();
  });

  it("answers a receipt: counts as the dry run said, probes empty, no personal data", () => {
    expect(erased.status).toBe(200);
    const receipt = erased.body.receipt;
    expect(receipt.counts).toEqual(dry.counts);
    expect(receipt.total).toBe(dry.total);
    expect(receipt.probes.passed).toBe(true);
    expect(receipt.probes.ids.checked).toBeGreaterThan(0);
    expect(receipt.probes.search.checked).toBeGreaterThan(0);
    expect(receipt.probes.scan.strings).toBeGreaterThan(1);
    expect(receipt.probes.scan.columns).toBeGreaterThan(20);
    expect(receipt.subject).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(JSON.stringify(receipt)).not.toContain(alice.userId);
    expect(JSON.stringify(receipt).toLowerCase()).not.toContain(alice.marker.toLowerCase());
  });

  it("no column of any table holds the marker or the user id; the rows that went are the receipt's", () => {
    expect(rowsWith(after, alice.marker)).toEqual({});
    expect(rowsWith(after, alice.userId)).toEqual({});
    for (const [t, rows] of before) {
      if (ERASURE_WRITES.has(t)) continue;
      expect(rows.length - (after.get(t)?.length ?? 0), `rows gone from ${t}`).toBe(erased.body.receipt.counts[t] ?? 0);
    }
  });

  it("every row of the other users is byte-identical", () => {
    expectOthersUntouched(before, after, others);
  });

  it("the user's ids answer 404, the user is unknown, the audit log has the receipt", async () => {
    for (const id of alice.memoryIds) expect((await t.api.get(`/memories/${id}`)).status).toBe(404);
    expect((await t.api.get(`/conversations/${alice.conversationId}`)).status).toBe(404);
    expect((await t.api.get(`/users/${alice.userId}/export`)).status).toBe(404);
    expect((await t.api.post(`/users/${alice.userId}/erase`, { dry_run: true })).status).toBe(404);
    const audit = await t.api.get("/project/audit");
    const entry = audit.body.data.find((e: any) => e.action === "user.erased");
    expect(entry.details.receipt_id).toBe(erased.body.receipt.receipt_id);
    expect(entry.target).toBe(erased.body.receipt.subject);
  });

  it("importing the export gives the user's data back as it was (ids, times, history)", async () => {
    const r = await t.api.post("/user-imports", exported);
    expect(r.status).toBe(201);
    expect(r.body.counts.memories).toBe(3);
    const again = (await t.api.get(`/users/${alice.userId}/export`)).body;
    expect(again.tables).toEqual(exported.tables);
    const history = await t.api.get(`/memories/${alice.memoryIds[0]}/history`);
    expect(history.body.data.length).toBeGreaterThan(1);
    // A second import of the same rows is refused whole.
    const twice = await t.api.post("/user-imports", exported);
    expect(twice.status).toBe(409);
  });

  it("an unknown user is a 404 for export and erasure", async () => {
    const u = `nobody-${tag()}`;
    const e = await t.api.get(`/users/${u}/export`);
    expect(e.status).toBe(404);
    expect(e.body.error.code).toBe("not_found");
    expect((await t.api.post(`/users/${u}/erase`, { dry_run: true })).status).toBe(404);
  });

  it("an import naming a column the table does not have is a 422 naming it, and writes nothing", async () => {
    const u = `imp-${tag()}`;
    const doc = {
      format: "memscope.user-export",
      version: 1,
      user_id: u,
      exported_at: new Date().toISOString(),
      tables: {
        memories: [{ id: randomUUID(), user_id: u, memory_type: "fact", content: "x", content_key: "x" }],
        memory_events: [{ id: randomUUID(), memory_id: randomUUID(), event_type: "create", actor: "api", no_such_column: 1 }],
      },
    };
    const r = await t.api.post("/user-imports", doc);
    expect(r.status).toBe(422);
    expect(r.body.error.details[0].field).toBe("tables.memory_events.no_such_column");
    expect((await t.api.get(`/users/${u}/export`)).status).toBe(404);
  });
});
