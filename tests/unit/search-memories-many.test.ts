import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, type Database } from "@/lib/db/open-database";
import { DEFAULT_PROJECT_ID, projectSql, type ProjectSql } from "@/lib/db/project-sql";
import { lexicalProvider } from "@/lib/embeddings/embedding-provider";
import { searchMemories, searchMemoriesMany, type ManySearchConfig } from "@/lib/memories/search-memories";
import { freshDataDir } from "../helpers/fresh-data-dir";
import { lexicalRow, sentence, writeLexicalMemories } from "../helpers/lexical-memories";
import { removeDir } from "../helpers/temp-dir";

// An eval run searches a user's cases together (searchMemoriesMany: the queries embedded
// together, the user's rows read once for all their exact candidates, the memories loaded
// once). Each query's answer must be the one searchMemories gives it alone: same memories,
// same order, same score parts. On the embedded database, both paths: the exact scan of a
// small user and the HNSW walks of a user above MEMSCOPE_EXACT_SCAN_MAX.

let db: Database;
let dir: string;
let sql: ProjectSql;

beforeAll(async () => {
  dir = await freshDataDir();
  db = await openDatabase({ kind: "pglite", dataDir: dir });
  sql = projectSql(db.sql, DEFAULT_PROJECT_ID);
  const rows = (n: number, from: number) => Array.from({ length: n }, (_, i) => lexicalRow(randomUUID(), sentence(from + i)));
  // 70 memories of one text: tied cosines, more than a search's 50 vector candidates, so which
  // of them are candidates rests on the tie-break (id).
  const a = [...rows(400, 0), ...Array.from({ length: 70 }, () => lexicalRow(randomUUID(), "a duplicate twin note"))];
  await writeLexicalMemories(db, [["many-a", a], ["many-b", rows(60, 500)]]);
  // Varied importance, a few memories accessed (the recency term), one of another type.
  await db.sql.query(`UPDATE memories SET importance_score = (abs(hashtext(id::text)) % 100) / 100.0 WHERE user_id = 'many-a'`);
  await db.sql.query(`UPDATE memories SET last_accessed_at = now() - interval '3 days' WHERE id = ANY($1::uuid[])`, [a.slice(0, 40).map((r) => r.id)]);
  await db.sql.query(`UPDATE memories SET memory_type = 'preference' WHERE id = ANY($1::uuid[])`, [a.slice(40, 120).map((r) => r.id)]);
}, 180_000);
afterAll(async () => {
  await db?.close();
  if (dir) removeDir(dir);
});

const QUERIES = ["Often plans the quiet coffee", "bright garden after work", "what is the", "item 17", "reviews the formal budget in Lisbon", "spicy recipe", "zebra unknown words", "keeps the remote river online", "duplicate twin note"];

type Hit = { memory: { id: string }; score: number; breakdown: { cosine: number; importance: number; similarity_term: number; importance_term: number; matched_by: string[]; time_decay: number; recency_term: number; final: number } };

// time_decay = exp(-days / 30) falls by at most 1/30 a day: this much a second (lib/memories/score-memory.ts).
const DECAY_PER_SECOND = 1 / 30 / 86_400;

/**
 * Same memories in the same order with the same score parts; the clock-dependent parts (time
 * decay, and the recency term and score it feeds, weights <= 1) within what the decay can move
 * in the time between the two searches, and never more than 1e-6 beyond it: the searches run
 * seconds apart on a loaded machine, and a fixed 1e-6 allowed only 2.6 s.
 */
function expectSameHits(many: Hit[], alone: Hit[], query: string, secondsApart: number) {
  const exact = (h: Hit[]) => h.map((d) => ({ id: d.memory.id, cosine: d.breakdown.cosine, importance: d.breakdown.importance, s: d.breakdown.similarity_term, i: d.breakdown.importance_term, by: d.breakdown.matched_by }));
  expect(exact(many), query).toEqual(exact(alone));
  const tolerance = 1e-6 + secondsApart * DECAY_PER_SECOND;
  many.forEach((d, i) => {
    for (const v of [d.score - alone[i].score, d.breakdown.time_decay - alone[i].breakdown.time_decay, d.breakdown.recency_term - alone[i].breakdown.recency_term]) expect(Math.abs(v)).toBeLessThan(tolerance);
  });
}

async function expectSameAsAlone(user: string, config: ManySearchConfig) {
  const startedAt = performance.now();
  const many = await searchMemoriesMany(sql, user, QUERIES, config, lexicalProvider);
  expect(many).toHaveLength(QUERIES.length);
  for (const [i, query] of QUERIES.entries()) {
    const alone = await searchMemories(sql, user, { ...config, query, dry_run: true }, { recordAccess: false, log: false });
    expectSameHits(many[i].data, alone.data, query, (performance.now() - startedAt) / 1000);
    expect(many[i].latency_ms).toBeGreaterThan(0);
  }
  return many;
}

describe("searchMemoriesMany answers each query as searchMemories does alone", () => {
  it("a user searched by an exact scan, under several configurations", async () => {
    const many = await expectSameAsAlone("many-a", { k: 10, status: "active" });
    expect(many[0].data.length).toBe(10);
    await expectSameAsAlone("many-a", { k: 3, status: "active", memory_types: ["preference"], weights: { similarity: 0.2, recency: 0.5, importance: 0.3 } });
    await expectSameAsAlone("many-a", { k: 25, status: "active", min_score: 0.35 });
    await expectSameAsAlone("many-b", { k: 10, status: "active" });
    await expectSameAsAlone("nobody", { k: 10, status: "active" });
  });
  it("a user above the exact-scan line (HNSW walks, one per query)", async () => {
    process.env.MEMSCOPE_EXACT_SCAN_MAX = "100";
    try {
      await expectSameAsAlone("many-a", { k: 10, status: "active" });
    } finally {
      delete process.env.MEMSCOPE_EXACT_SCAN_MAX;
    }
  });
});
