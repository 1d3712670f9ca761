import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { sharedProject } from "../helpers/shared-app";

// Imports belong to the project of the key that made them: the job, the conversations and
// memories, the source ids that make re-runs idempotent. The same file imported into
// another project imports afresh there (under the source's own ids: ids are unique per
// project), and neither project sees the other's import. A and B are two projects of their own
// on the worker's shared server (tests/helpers/shared-app.ts): their isolation from each other is
// what is tested, so the other files' projects on that server change nothing here.

const fixture = (name: string) => fs.readFileSync(path.join(__dirname, "../fixtures/imports", name), "utf8");
const C1 = "3f1c2a90-5b7e-4d21-9c3a-0a1b2c3d4e01";
const M01 = "7a0d9e4c-1111-4c5a-8d2e-000000000001";

type Job = { id: string; status: string; actor: string | null; counts: Record<string, number>; problems: unknown[] };

describe("imports are per project", () => {
  let url = "";
  let keyA = "";
  let keyB = "";

  beforeAll(async () => {
    const [a, b] = await Promise.all([sharedProject("embedded", "imports A"), sharedProject("embedded", "imports B")]);
    url = a.url;
    // Keys named here: a job names the key that made it as its actor.
    keyA = await a.owner.key("a-importer", ["read", "write"]);
    keyB = await b.owner.key("b-importer", ["read", "write"]);
    expect(keyA).toBeTruthy();
    expect(keyB).toBeTruthy();
  });

  const call = async (key: string, method: string, p: string, body?: unknown) => {
    const r = await fetch(`${url}/api/v1${p}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body ? { "content-type": "application/json" } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: r.status, body: await r.json() };
  };

  async function runImport(key: string, body: Record<string, unknown>): Promise<Job> {
    const r = await call(key, "POST", "/imports", body);
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    const deadline = Date.now() + 60_000;
    for (;;) {
      const j = await call(key, "GET", `/imports/${r.body.id}`);
      expect(j.status).toBe(200);
      if (j.body.status === "done" || j.body.status === "failed") return j.body;
      if (Date.now() > deadline) throw new Error(`import ${r.body.id} still ${j.body.status}`);
      await new Promise((res) => setTimeout(res, 100));
    }
  }

  let jobB: Job;

  it("an import made with project B's key lands in B, names the key as its actor, and is a 404 for project A's key", async () => {
    jobB = await runImport(keyB, { content: fixture("dify-api.json"), file_name: "dify-api.json" });
    expect(jobB).toMatchObject({ status: "done", actor: "b-importer" });
    expect(jobB.counts).toMatchObject({ conversations: 2, turns: 7, failed: 1 });

    // B reads what it imported, under the source's own ids.
    const conv = await call(keyB, "GET", `/conversations/${C1}`);
    expect(conv.status).toBe(200);
    expect(conv.body).toMatchObject({ id: C1, turn_count: 5, branch_count: 2 });

    // A: the job is not found, and not listed.
    expect((await call(keyA, "GET", `/imports/${jobB.id}`)).status).toBe(404);
    // Cancelling it from A is the same 404 as for an id nobody has (not a 409 that would tell it exists).
    const cancelA = await call(keyA, "POST", `/imports/${jobB.id}/cancel`);
    expect([cancelA.status, cancelA.body.error.code]).toEqual([404, "not_found"]);
    const cancelB = await call(keyB, "POST", `/imports/${jobB.id}/cancel`);
    expect([cancelB.status, cancelB.body.error.code]).toEqual([409, "conflict"]);
    const listA = await call(keyA, "GET", "/imports");
    expect(listA.status).toBe(200);
    expect(listA.body.data.map((j: Job) => j.id)).not.toContain(jobB.id);
    expect((await call(keyB, "GET", "/imports")).body.data.map((j: Job) => j.id)).toContain(jobB.id);
  });

  it("re-running the file in B duplicates nothing; the same file in A imports afresh, and A's copy is its own", async () => {
    const again = await runImport(keyB, { content: fixture("dify-api.json") });
    expect(again.counts).toEqual({ conversations: 0, turns: 0, memories: 0, skipped: 2, failed: 1 });
    expect((await call(keyB, "GET", `/conversations/${C1}`)).body.turn_count).toBe(5);

    const inA = await runImport(keyA, { content: fixture("dify-api.json") });
    expect(inA.counts).toEqual({ conversations: 2, turns: 7, memories: 0, skipped: 0, failed: 1 });
    expect(inA.problems).toHaveLength(1); // the fixture's bad record, nothing about taken ids
    expect(inA).toMatchObject({ status: "done", actor: "a-importer" });
    // A re-run in A skips what A imported.
    expect((await runImport(keyA, { content: fixture("dify-api.json") })).counts).toEqual({ conversations: 0, turns: 0, memories: 0, skipped: 2, failed: 1 });
    // B's copy is untouched by A's import.
    const b = await call(keyB, "GET", `/conversations/${C1}/messages`);
    expect(b.body.data).toHaveLength(5);
    expect(b.body.data[0].id).toBe(M01);
    // A's copy has the same ids (ids are per project) and is A's own: a turn A adds is not in B's.
    expect((await call(keyA, "GET", `/conversations/${C1}/messages`)).body.data[0].id).toBe(M01);
    expect((await call(keyA, "POST", `/conversations/${C1}/messages`, { query: "only in A", answer: "A's answer" })).status).toBe(201);
    expect((await call(keyA, "GET", `/conversations/${C1}`)).body.turn_count).toBe(6);
    expect((await call(keyB, "GET", `/conversations/${C1}`)).body.turn_count).toBe(5);
  });

  it("memories too: a Mem0 export imported in B is skipped on a re-run in B and imported afresh in A", async () => {
    const b1 = await runImport(keyB, { content: fixture("mem0.json") });
    expect(b1.counts.memories).toBeGreaterThan(0);
    const b2 = await runImport(keyB, { content: fixture("mem0.json") });
    expect(b2.counts).toMatchObject({ memories: 0, skipped: b1.counts.memories });
    const a1 = await runImport(keyA, { content: fixture("mem0.json") });
    expect(a1.counts).toMatchObject({ memories: b1.counts.memories, skipped: 0 });
  });
});
