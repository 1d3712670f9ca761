import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { readMigrations } from "../../lib/db/migrations";
import { removeDir, tempDir } from "./temp-dir";

// A new embedded data folder costs PGlite's initdb plus every migration: most of a server's
// first start, and many suites start on a fresh folder. Suites that need an empty, current
// database get a copy of a folder created and migrated once per set of migrations (and PGlite
// version) instead. The migrate-at-start path itself still runs: on every fresh PostgreSQL
// database, and in the suites that bring their own folder (data-folder-lock, auth-upgrade).

let template: Promise<string> | null = null;

function templateKey(): string {
  const pglite = JSON.parse(fs.readFileSync(path.resolve(__dirname, "../../node_modules/@electric-sql/pglite/package.json"), "utf8")).version;
  const h = createHash("sha256").update(pglite);
  for (const m of readMigrations()) h.update(`${m.name}:${m.checksum}`);
  return h.digest("hex").slice(0, 16);
}

async function makeTemplate(): Promise<string> {
  const dir = path.join(os.tmpdir(), `memscope-template-${templateKey()}`);
  // Complete once it exists: it appears by an atomic rename of a finished folder.
  if (fs.existsSync(dir)) return dir;
  const building = tempDir("template");
  const { openDatabase } = await import("../../lib/db/open-database");
  const db = await openDatabase({ kind: "pglite", dataDir: building });
  await db.close();
  try {
    fs.renameSync(building, dir);
  } catch {
    removeDir(building); // another test process finished first
  }
  return dir;
}

/** An empty embedded data folder with every migration applied (a copy of the template). */
export async function freshDataDir(): Promise<string> {
  template ??= makeTemplate();
  const from = await template;
  const dir = tempDir("data");
  fs.cpSync(from, dir, { recursive: true });
  return dir;
}
