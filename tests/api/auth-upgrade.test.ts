import { execFileSync, spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "@/lib/db/open-database";
import { DATABASE_KINDS } from "../helpers/test-database";
import { startScratchPostgres } from "../helpers/scratch-postgres";
import { removeDir, tempDir } from "../helpers/temp-dir";

// Upgrade: a database written by Memscope before projects existed (the main branch at
// 0dd99f7, checked out from git history and run as it was) opens with this code, and
// every row is in project `default` with its id unchanged.

const BEFORE_PROJECTS = "0dd99f7";
const ROOT = path.resolve(__dirname, "../..");
const TABLES = [
  "conversations",
  "messages",
  "message_files",
  "node_memories",
  "memories",
  "memory_embeddings",
  "memory_relations",
  "memory_events",
  "memory_retrievals",
  "memory_retrieval_hits",
  "memory_review_items",
  "embedding_jobs",
  "app_settings",
  "offloaded_contents",
  "memory_user_counts",
];

let oldTree: string;

beforeAll(() => {
  oldTree = tempDir("old-main");
  const tar = execFileSync("git", ["-C", ROOT, "archive", BEFORE_PROJECTS], { maxBuffer: 256 * 1024 * 1024 });
  execFileSync("tar", ["-x", "-C", oldTree], { input: tar });
  fs.symlinkSync(path.join(ROOT, "node_modules"), path.join(oldTree, "node_modules"));
  const gen = spawnSync(process.execPath, ["scripts/prisma-generate.mjs"], { cwd: oldTree, encoding: "utf8" });
  if (gen.status !== 0) throw new Error(`prisma generate in the old tree failed:\n${gen.stdout}\n${gen.stderr}`);
});
afterAll(() => oldTree && removeDir(oldTree));

/**
 * Runs the old code's `npm run db:seed` against a database. That script does not exit by
 * itself once done (a handle stays open), so: wait for its report and for the data folder
 * to be closed, then stop it.
 */
async function seedWithOldCode(env: Record<string, string>, dataDir: string | null) {
  const tsx = path.join(ROOT, "node_modules", "tsx", "dist", "cli.mjs");
  const child = spawn(process.execPath, [tsx, "--conditions=react-server", "scripts/db-seed.ts"], {
    cwd: oldTree,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env } as unknown as NodeJS.ProcessEnv,
    // Its own process group: tsx runs the script in a child process, which a kill of the
    // tsx process alone would leave running (seen: orphaned seeds after a CI run).
    detached: true,
  });
  let out = "";
  child.stdout.on("data", (d) => (out += d));
  child.stderr.on("data", (d) => (out += d));
  const deadline = Date.now() + 180_000;
  try {
    while (!/Seeded \d+ demo conversations/.test(out)) {
      if (child.exitCode !== null || Date.now() > deadline) throw new Error(`old seed failed:\n${out}`);
      await sleep(200);
    }
    const closed = () => (dataDir ? !fs.existsSync(path.join(dataDir, "memscope.lock")) : true);
    while (!closed() && child.exitCode === null && Date.now() < deadline) await sleep(200);
    // PostgreSQL has no lock file to watch: up to a second for the seed to close and exit.
    for (const end = Date.now() + 1000; !dataDir && child.exitCode === null && Date.now() < end; ) await sleep(50);
  } finally {
    try {
      process.kill(-child.pid!, "SIGKILL");
    } catch {
      /* the group has exited already */
    }
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

for (const kind of DATABASE_KINDS) {
  describe(`upgrade on ${kind}`, () => {
    it("a database written before projects opens with every row in project default, ids kept", { timeout: 300_000 }, async () => {
      const dataDir = tempDir("old-data");
      const pg = kind === "postgres" ? await startScratchPostgres() : null;
      try {
        await seedWithOldCode(pg ? { DATABASE_URL: pg.url } : { MEMSCOPE_DATA_DIR: dataDir }, pg ? null : dataDir);
        const config = pg ? ({ kind: "postgres", url: pg.url } as const) : ({ kind: "pglite", dataDir } as const);

        // What the old code wrote, read without migrating.
        const before = await openDatabase(config, { migrate: false });
        const oldIds = await before.sql.query<{ id: string }>(`SELECT id FROM memories ORDER BY id`);
        const oldTurns = await before.sql.query(`SELECT id, conversation_id, parent_message_id, tree_parent_id FROM messages ORDER BY id`);
        const oldCounts: Record<string, number> = {};
        for (const t of TABLES) oldCounts[t] = (await before.sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${t}"`))[0].n;
        const hasProjectCol = await before.sql.query(`SELECT 1 FROM information_schema.columns WHERE table_name = 'memories' AND column_name = 'project_id'`);
        await before.close();
        expect(hasProjectCol).toHaveLength(0);
        expect(oldCounts.conversations).toBeGreaterThan(0);
        expect(oldCounts.memories).toBeGreaterThan(0);
        expect(oldCounts.messages).toBeGreaterThan(0);

        const db = await openDatabase(config);
        try {
          const [project] = await db.sql.query<{ id: string; slug: string }>(`SELECT id, slug FROM projects`);
          expect(project).toEqual({ id: "default", slug: "default" });
          for (const t of TABLES) {
            const rows = await db.sql.query<{ project_id: string; n: number }>(`SELECT project_id, count(*)::int AS n FROM "${t}" GROUP BY 1`);
            const total = rows.reduce((s, r) => s + r.n, 0);
            expect({ table: t, total }).toEqual({ table: t, total: oldCounts[t] });
            expect(rows.every((r) => r.project_id === "default")).toBe(true);
          }
          expect(await db.sql.query(`SELECT id FROM memories ORDER BY id`)).toEqual(oldIds);
          // Turns keep their ids, conversations and parents (keys are per project since 20261125000000_project_scoped_ids).
          expect(await db.sql.query(`SELECT id, conversation_id, parent_message_id, tree_parent_id FROM messages ORDER BY id`)).toEqual(oldTurns);
          // The app's own reads still see the data.
          expect(await db.prisma.conversation.count({ where: { projectId: "default" } })).toBe(oldCounts.conversations);
        } finally {
          await db.close();
        }
      } finally {
        await pg?.stop();
        removeDir(dataDir);
      }
    });
  });
}
