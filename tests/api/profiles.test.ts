import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient } from "../helpers/api-client";
import { sharedProject, type SharedProject } from "../helpers/shared-app";
import type { Owner } from "../helpers/owner";
import { DATABASE_KINDS, itOnOneKind } from "../helpers/test-database";

// Agent profiles (issue 22, part 2): per app_id, every change is a new version with the
// instant it took effect; the version in force at an instant; project isolation.

const settings = (k: number) => ({
  model: "gpt-4o-mini",
  strategy: { type: "message_window", max_attached_message_count: 6 },
  memory: { k, weights: { similarity: 0.5, recency: 0.1, importance: 0.4 }, format: "xml_block", memory_types: ["fact", "preference"], min_score: 0.1 },
  system_prompt: "You are the support agent.",
  reserved_output_tokens: 512,
});

describe.each(DATABASE_KINDS)("agent profiles on %s", (kind) => {
  // Refusals decided before any write, scopes and the OpenAPI text run on one kind (the rule is in
  // tests/helpers/test-database.ts); the rest, on both.
  const oneKind = itOnOneKind(kind);
  let server: SharedProject;
  let owner: Owner;
  let n = 0;
  /** A fresh project and a client with a key of it (scopes as given). */
  const project = async (scopes = ["read", "write", "admin"]) => {
    const p = await owner.post("/projects", { name: `profiles ${++n}` });
    const key = await owner.key(`k${n}`, scopes, p.id);
    return { id: p.id as string, api: apiClient(server.url, { authorization: `Bearer ${key}` }), key: (s: string[]) => owner.key(`k${++n}`, s, p.id) };
  };

  beforeAll(async () => {
    server = await sharedProject(kind, "profiles");
    owner = server.owner;
  }, 240_000);
  afterAll(async () => server?.stop());

  it("each change is a new version; history newest first; the version in force at an instant", async () => {
    const { api } = await project();
    const t1 = "2026-01-01T10:00:00.000Z";
    const v1 = await api.post("/profiles/support-bot/versions", { settings: settings(3), effective_from: t1, note: "first" });
    expect(v1.status).toBe(201);
    expect(v1.body).toMatchObject({ app_id: "support-bot", version: 1, effective_from: t1, note: "first", settings: settings(3) });
    const v2 = await api.post("/profiles/support-bot/versions", { settings: { strategy: { type: "token_buffer", max_token_limit: 2000 } } });
    expect(v2.status).toBe(201);
    expect(v2.body.version).toBe(2);
    // Defaults filled in, as POST /context would.
    expect(v2.body.settings).toEqual({
      model: "gpt-4o",
      strategy: { type: "token_buffer", max_token_limit: 2000, include_tools: true },
      memory: { enabled: true, k: 5, format: "user_memory" },
      system_prompt: "",
      reserved_output_tokens: 1024,
    });
    expect(Date.parse(v2.body.effective_from)).toBeGreaterThan(Date.parse(t1));

    const history = await api.get("/profiles/support-bot");
    expect(history.status).toBe(200);
    expect(history.body.versions.map((v: { version: number }) => v.version)).toEqual([2, 1]);
    expect(history.body.current.version).toBe(2);
    expect(history.body.versions[1]).toEqual(v1.body);

    expect((await api.get("/profiles/support-bot/versions/1")).body).toEqual(v1.body);
    expect((await api.get(`/profiles/support-bot/in-force?at=${encodeURIComponent("2026-02-01T00:00:00Z")}`)).body).toEqual(v1.body);
    expect((await api.get(`/profiles/support-bot/in-force?at=${encodeURIComponent(t1)}`)).body.version).toBe(1);
    expect((await api.get(`/profiles/support-bot/in-force?at=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).body.version).toBe(2);
    const before = await api.get(`/profiles/support-bot/in-force?at=${encodeURIComponent("2025-12-31T23:59:59.999Z")}`);
    expect(before.status).toBe(404);
    expect(before.body.error.details[0].field).toBe("at");

    const list = await api.get("/profiles");
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([{ app_id: "support-bot", version_count: 2, latest_version: 2, current: v2.body }]);

    // Saving the same settings again (keys in another order) is no change: 200 with version 2, no version 3.
    const same = await api.post("/profiles/support-bot/versions", { settings: { system_prompt: "", strategy: { max_token_limit: 2000, type: "token_buffer" } } });
    expect(same.status).toBe(200);
    expect(same.body).toEqual(v2.body);
    expect((await api.get("/profiles/support-bot")).body.versions).toHaveLength(2);
    // A different setting is a new version.
    const v3 = await api.post("/profiles/support-bot/versions", { settings: { strategy: { type: "token_buffer", max_token_limit: 2001 } } });
    expect([v3.status, v3.body.version]).toEqual([201, 3]);
  });

  it("a version scheduled ahead is not current yet; the history only grows forward", async () => {
    const { api } = await project();
    await api.post("/profiles/bot/versions", { settings: settings(2), effective_from: "2026-03-01T00:00:00Z" });
    const ahead = new Date(Date.now() + 3_600_000).toISOString();
    expect((await api.post("/profiles/bot/versions", { settings: settings(4), effective_from: ahead })).status).toBe(201);
    const h = await api.get("/profiles/bot");
    expect(h.body.current.version).toBe(1);
    expect(h.body.versions[0].version).toBe(2);
    const back = await api.post("/profiles/bot/versions", { settings: settings(5), effective_from: "2026-03-02T00:00:00Z" });
    expect(back.status).toBe(422);
    expect(back.body.error.details[0].field).toBe("effective_from");
    // Nothing was written by the refused change.
    expect((await api.get("/profiles/bot")).body.versions).toHaveLength(2);
  });

  oneKind("bad input answers 4xx naming the field; unknown app or version 404", async () => {
    const { api } = await project();
    const bad = await api.post("/profiles/bot/versions", { settings: { ...settings(3), strategy: { type: "sliding" } } });
    expect(bad.status).toBe(422);
    expect(bad.body.error.details[0].field).toBe("settings.strategy.type");
    const k = await api.post("/profiles/bot/versions", { settings: { ...settings(3), memory: { k: 0 } } });
    expect(k.status).toBe(422);
    expect(k.body.error.details[0].field).toBe("settings.memory.k");
    const extra = await api.post("/profiles/bot/versions", { settings: settings(3), colour: "red" });
    expect(extra.status).toBe(422);
    const when = await api.post("/profiles/bot/versions", { settings: settings(3), effective_from: "yesterday" });
    expect(when.body.error.details[0].field).toBe("effective_from");
    const json = await api.raw("POST", "/profiles/bot/versions", "{not json");
    expect(json.status).toBe(400);
    expect(json.body.error.details[0].field).toBe("body");
    const at = await api.get("/profiles/bot/in-force?at=soon");
    expect(at.status).toBe(422);
    expect(at.body.error.details[0].field).toBe("at");
    expect((await api.get("/profiles/bot")).status).toBe(404);
    expect((await api.get("/profiles")).body.data).toEqual([]);
    await api.post("/profiles/bot/versions", { settings: settings(3) });
    const v9 = await api.get("/profiles/bot/versions/9");
    expect(v9.status).toBe(404);
    expect(v9.body.error.details[0].field).toBe("version");
    // A version that is no number names nothing: 404 like an unknown one.
    expect((await api.get("/profiles/bot/versions/abc")).status).toBe(404);
    expect((await api.get("/profiles/bot/in-force")).body.version).toBe(1);
  });

  oneKind("read keys read, write keys change", async () => {
    const p = await project();
    await p.api.post("/profiles/bot/versions", { settings: settings(3) });
    const reader = apiClient(server.url, { authorization: `Bearer ${await p.key(["read"])}` });
    expect((await reader.get("/profiles/bot")).status).toBe(200);
    const denied = await reader.post("/profiles/bot/versions", { settings: settings(4) });
    expect(denied.status).toBe(403);
    expect((await p.api.get("/profiles/bot")).body.versions).toHaveLength(1);
  });

  it("another project's profile is answered as an unknown one, and its versions are its own", async () => {
    const a = await project();
    const b = await project();
    const v1 = await a.api.post("/profiles/shared-name/versions", { settings: settings(3) });
    const strip = (r: { status: number; body: any }) => ({ status: r.status, body: JSON.parse(JSON.stringify(r.body).replaceAll("shared-name", "X").replaceAll("fresh-name", "X")) });
    for (const path of ["", "/versions/1", `/in-force?at=${encodeURIComponent(new Date(Date.now() + 1000).toISOString())}`]) {
      const theirs = await b.api.get(`/profiles/shared-name${path}`);
      const fresh = await b.api.get(`/profiles/fresh-name${path}`);
      expect(theirs.status).toBe(404);
      expect(strip(theirs)).toEqual(strip(fresh));
    }
    expect((await b.api.get("/profiles")).body.data).toEqual([]);
    const own = await b.api.post("/profiles/shared-name/versions", { settings: settings(7) });
    expect(own.body.version).toBe(1);
    expect((await a.api.get("/profiles/shared-name")).body.versions).toEqual([v1.body]);
  });
});
