import { randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { apiClient } from "../helpers/api-client";
import type { AppServer } from "../helpers/app-server";
import { openTestDatabase, type TestDatabase } from "../helpers/test-database";
import { makePerson } from "./privacy-fixture";

// Issue 24: deleted rows stay in the database files until their space is reused. With
// physical: true, the embedded database's data folder holds the erased text no more.

/** Files of the data folder whose bytes hold the string. */
function filesWith(dir: string, needle: string): string[] {
  const hits: string[] = [];
  const n = Buffer.from(needle);
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile() && fs.readFileSync(p).includes(n)) hits.push(path.relative(dir, p));
    }
  };
  walk(dir);
  return hits.sort();
}

/** Which relations files of base/ are (a failure says which table or index kept the text). */
async function relationsOf(dir: string, files: string[]): Promise<string[]> {
  const [{ PGlite }, { vector }] = await Promise.all([import("@electric-sql/pglite"), import("@electric-sql/pglite-pgvector")]);
  const p = await PGlite.create({ dataDir: dir, extensions: { vector } });
  try {
    const out: string[] = [];
    for (const f of files) {
      const node = Number(path.basename(f).split(/[._]/)[0]);
      const r = await p.query<{ relname: string }>(`SELECT relname FROM pg_class WHERE pg_relation_filenode(oid) = $1`, [node]);
      out.push(`${f}: ${r.rows.map((x) => x.relname).join(",") || "?"}`);
    }
    return out;
  } finally {
    await p.close();
  }
}

describe("physical erasure on the embedded database", () => {
  let db: TestDatabase;
  let server: AppServer | null = null;
  afterAll(async () => {
    await server?.stop();
    await db?.stop();
  });

  it("the marker is in the data folder's files before and in none after", { timeout: 300_000 }, async () => {
    db = await openTestDatabase("embedded");
    server = await db.startApp();
    const marker = `PHY${randomUUID().replace(/-/g, "").slice(0, 12)}`;
    const person = await makePerson(server.url, `p-${randomUUID().slice(0, 6)}`, marker);
    await makePerson(server.url, `q-${randomUUID().slice(0, 6)}`, `OTH${randomUUID().slice(0, 8)}`);
    await server.stop();
    expect(filesWith(db.dataDir!, marker).length).toBeGreaterThan(0);

    server = await db.startApp();
    const r = await apiClient(server.url).post(`/users/${person.userId}/erase`, { confirm: true, physical: true });
    expect(r.status).toBe(200);
    expect(r.body.receipt.physical.checkpoint).toBe(true);
    expect(r.body.receipt.physical.tables).toContain("messages");
    expect(r.body.receipt.physical.outside_reach.length).toBeGreaterThan(0);
    await server.stop();
    server = null;
    const left = filesWith(db.dataDir!, marker);
    expect(left.length ? await relationsOf(db.dataDir!, left) : left).toEqual([]);
    const id = filesWith(db.dataDir!, person.userId);
    expect(id.length ? await relationsOf(db.dataDir!, id) : id).toEqual([]);
  });
});
