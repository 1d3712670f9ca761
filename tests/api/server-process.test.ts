import { spawnSync } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient } from "../helpers/api-client";
import { startAppServer, type AppServer } from "../helpers/app-server";

const ROOT = path.resolve(__dirname, "../..");

describe("a running server on the embedded database", () => {
  let server: AppServer;
  beforeAll(async () => {
    server = await startAppServer({ seed: true, seedAtStart: true, env: { MEMSCOPE_API_KEY: "test-bootstrap-key-0123456789abcdef" } });
  });
  afterAll(async () => server?.stop());

  it("seeds demo data on an empty database: apps, users, branches, a 600+ turn thread, legacy parents, images", async () => {
    const api = apiClient(server.url, { authorization: "Bearer test-bootstrap-key-0123456789abcdef" });
    const list = await api.get("/conversations?limit=200");
    expect(list.status).toBe(200);
    const convs = list.body.data as { app_id: string; end_user_id: string; turn_count: number; branch_count: number; id: string }[];
    expect(new Set(convs.map((c) => c.app_id)).size).toBeGreaterThanOrEqual(3);
    expect(new Set(convs.map((c) => c.end_user_id)).size).toBeGreaterThanOrEqual(3);
    expect(Math.max(...convs.map((c) => c.turn_count))).toBeGreaterThanOrEqual(600);
    expect(convs.some((c) => c.branch_count > 1)).toBe(true);
    let legacyNil = 0;
    let images = 0;
    for (const c of convs) {
      const m = await api.get(`/conversations/${c.id}/messages?limit=1000`);
      for (const msg of m.body.data) {
        if (msg.parent_message_id === "00000000-0000-0000-0000-000000000000") legacyNil++;
        images += msg.files.filter((f: { type: string }) => f.type === "image").length;
      }
    }
    expect(legacyNil).toBeGreaterThan(0);
    expect(images).toBeGreaterThan(0);
  });

  it("requires the API key when MEMSCOPE_API_KEY is set", async () => {
    const open = apiClient(server.url);
    const r = await open.get("/conversations");
    expect(r.status).toBe(401);
    expect(r.body.error.code).toBe("unauthorized");
    const wrong = apiClient(server.url, { authorization: "Bearer nope" });
    expect((await wrong.get("/conversations")).status).toBe(401);
    // One documented way in: the Bearer header. x-api-key is not read.
    const viaHeader = apiClient(server.url, { "x-api-key": "test-bootstrap-key-0123456789abcdef" });
    expect((await viaHeader.get("/conversations")).status).toBe(401);
    const bearer = apiClient(server.url, { authorization: "Bearer test-bootstrap-key-0123456789abcdef" });
    expect((await bearer.get("/conversations")).status).toBe(200);
  });

  it("a second process on the same data folder fails at once, naming the server's process", () => {
    const r = spawnSync(process.execPath, ["--import", "tsx", "--conditions=react-server", "scripts/db-migrate.ts"], {
      cwd: ROOT,
      env: { ...process.env, MEMSCOPE_DATA_DIR: server.dataDir!, DATABASE_URL: "" },
      encoding: "utf8",
      timeout: 30_000,
    });
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/in use by process \d+/);
    expect(r.stderr).toContain(server.dataDir!);
  });
});
