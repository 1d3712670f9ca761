import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { readMigrations } from "../../lib/db/migrations";
import { LOADED_MACHINE_TIMEOUT_MS } from "./loaded-machine";
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
  return buildOnce(dir, "template", true);
}

/** `dir`, opened once by PGlite (with or without the migrations) into a temporary folder then renamed into place. */
async function buildOnce(dir: string, label: string, migrate: boolean): Promise<string> {
  if (fs.existsSync(dir)) {
    // In use: a temp folder on tmpfs drops what is unused for 12 hours (tests/support/test-tmpdir.ts).
    const now = new Date();
    fs.utimesSync(dir, now, now);
    return dir;
  }
  const building = tempDir(label);
  const { openDatabase } = await import("../../lib/db/open-database");
  const db = await openDatabase({ kind: "pglite", dataDir: building }, { migrate });
  await db.close();
  try {
    fs.renameSync(building, dir);
  } catch {
    removeDir(building); // another test process finished first
  }
  return dir;
}

let cluster: Promise<string> | null = null;

// PGlite's initdb alone (no migration): the start of the suites that test migrations themselves.
// Each made one from nothing, about 5 CPU-seconds, and at load 20-37 beside a build that took
// them past their time-out. Kept in the temp folder per PGlite version, as the template above.
async function makeCluster(): Promise<string> {
  const pglite = JSON.parse(fs.readFileSync(path.resolve(__dirname, "../../node_modules/@electric-sql/pglite/package.json"), "utf8")).version;
  const dir = path.join(os.tmpdir(), `memscope-cluster-${createHash("sha256").update(pglite).digest("hex").slice(0, 16)}`);
  return buildOnce(dir, "cluster", false);
}

/** An embedded data folder after PGlite's initdb, with no migration applied: a copy, into `dir` (an empty folder) if given. */
export async function emptyClusterDir(dir = tempDir("data")): Promise<string> {
  cluster ??= makeCluster();
  const from = await cluster;
  fs.cpSync(from, dir, { recursive: true });
  return dir;
}

let seededTemplate: Promise<string> | null = null;

// The demo seed is another 3 CPU-seconds of each seeded server start (browser suites and the
// seeded API suites start about 14). A server started on a copy of a folder it already seeded
// finds the database not empty and skips it. The demo memories are dated relative to the seeding
// time, so the seeded folder is made once per test run (the Vitest process, every worker's
// parent), by a real seeded server start. Seeding at start itself still runs on every PostgreSQL
// database and in two-instances (both kinds: two servers race to seed one database).
async function makeSeededTemplate(): Promise<string> {
  const dir = path.join(os.tmpdir(), `memscope-seeded-${templateKey()}-${process.ppid}`);
  if (fs.existsSync(dir)) return dir;
  // Seeded folders of earlier runs: removed once a few hours old (a run takes minutes).
  for (const name of fs.readdirSync(os.tmpdir())) {
    if (!name.startsWith("memscope-seeded-")) continue; // and their .claim folders
    const old = path.join(os.tmpdir(), name);
    try {
      if (Date.now() - fs.statSync(old).mtimeMs > 6 * 3600_000) removeDir(old);
    } catch {
      /* gone already */
    }
  }
  // One worker seeds; another that needs it meanwhile waits for the folder to appear.
  const claim = `${dir}.claim`;
  try {
    fs.mkdirSync(claim);
  } catch {
    for (const deadline = Date.now() + LOADED_MACHINE_TIMEOUT_MS; Date.now() < deadline; await new Promise((r) => setTimeout(r, 200))) {
      if (fs.existsSync(dir)) return dir;
      if (!fs.existsSync(claim)) break; // the seeding worker failed
    }
    throw new Error(`another test worker did not finish seeding ${dir}`);
  }
  try {
    const building = await freshDataDir();
    const { startAppServer } = await import("./app-server");
    const server = await startAppServer({ dataDir: building, seed: true });
    await server.stop();
    fs.rmSync(path.join(building, "memscope.lock"), { force: true });
    // The server exits without closing PGlite: open and close the folder once here, so that the
    // copies start without recovering it.
    const { openDatabase } = await import("../../lib/db/open-database");
    const db = await openDatabase({ kind: "pglite", dataDir: building });
    await db.close();
    fs.rmSync(path.join(building, "memscope.lock"), { force: true });
    fs.renameSync(building, dir);
    return dir;
  } finally {
    removeDir(claim);
  }
}

/** An embedded data folder holding the demo seed (a copy of this run's seeded folder). */
export async function seededDataDir(): Promise<string> {
  seededTemplate ??= makeSeededTemplate();
  const from = await seededTemplate;
  const dir = tempDir("data");
  fs.cpSync(from, dir, { recursive: true });
  return dir;
}

/** An empty embedded data folder with every migration applied: a copy of the template, into `dir` (an empty folder) if given. */
export async function freshDataDir(dir = tempDir("data")): Promise<string> {
  template ??= makeTemplate();
  const from = await template;
  fs.cpSync(from, dir, { recursive: true });
  return dir;
}
