import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { THIN_KTH_COSINE } from "@/lib/memories/search-memories";
import type { AppServer } from "../helpers/app-server";
import { exactTopK, lexicalRow, openDirect, sentence, WORDS, writeLexicalMemories, type LexicalRow } from "../helpers/lexical-memories";
import { DATABASE_KINDS, openTestDatabase, type TestDatabase } from "../helpers/test-database";

// Memory search chooses how it finds its vector candidates (lib/memories/search-memories.ts):
// an exact scan of the user's own rows for a user with few memories, the HNSW graph for a
// large one, and an exact scan again when the graph's answer looks thin. Through HTTP, with
// the exact top-k computed here in JS from the same lexical vectors.

const K = 10;
// The exact-scan limit, lowered from 5 000 (MEMSCOPE_EXACT_SCAN_MAX) so that a user above it
// takes 550 rows to write and index rather than 5 150: the paths depend on the limit, not on
// its value.
const EXACT_SCAN_MAX = 400;
// Only cosine ranks (no recency, no importance), so the search's top k is comparable with
// an exact cosine top k.
const COSINE_ONLY = { similarity: 1, recency: 0, importance: 0 };

const exactTop = (rows: LexicalRow[], query: string) => exactTopK(rows, query, K);

/** The search answered exactly the exact top k (ids; near-ties within float32 precision may swap). */
function expectExactTopK(got: { memory: { id: string }; breakdown: { cosine: number; matched_by: string[] } }[], exact: { id: string; cosine: number }[]) {
  expect(got).toHaveLength(K);
  const kth = exact[K - 1].cosine;
  const gotIds = new Set(got.map((g) => g.memory.id));
  for (const e of exact) if (e.cosine > kth + 1e-5) expect(gotIds, `exact neighbour ${e.id} (cosine ${e.cosine})`).toContain(e.id);
  for (const g of got) expect(g.breakdown.cosine).toBeGreaterThanOrEqual(kth - 1e-5);
  // Found by the vector path itself, not rescued by the full-text candidates.
  for (const g of got) expect(g.breakdown.matched_by).toContain("vector");
}

describe.each(DATABASE_KINDS)("memory search path on %s", (kind) => {
  let tdb: TestDatabase;
  let app: AppServer;
  const big = `big-${randomUUID().slice(0, 8)}`;
  const small = `small-${randomUUID().slice(0, 8)}`;
  const bigRows: LexicalRow[] = [];
  const smallRows: LexicalRow[] = [];

  beforeAll(async () => {
    tdb = await openTestDatabase(kind);
    // Rows go in through SQL before the app starts (the embedded folder has one owner at a time).
    const db = await openDirect(tdb);
    try {
      const make = (n: number, offset: number, extra: (i: number) => string | null) =>
        Array.from({ length: n }, (_, i) => {
          const content = extra(i) ?? sentence(offset + i);
          return lexicalRow(randomUUID(), content);
        });
      // A large user just over the exact-scan threshold, with three memories that share one
      // rare word with the thin query below and are otherwise long and unrelated.
      bigRows.push(
        ...make(EXACT_SCAN_MAX + 150, 0, (i) =>
          i < 3 ? `Told a long story about the ${WORDS.b[i]} ${WORDS.d[i]} and a quokka seen ${WORDS.d[i + 3]} during the ${WORDS.a[i]} season` : null,
        ),
      );
      // A small user with more rows than the 50 candidates asked for, so the scan's order matters.
      smallRows.push(...make(120, 7, () => null));
      await writeLexicalMemories(db, [[big, bigRows], [small, smallRows]]);
    } finally {
      await db.close();
    }
    // The shared graph's paths are under test: no user gets an index of their own here
    // (tests/api/memory-user-index.test.ts covers those).
    app = await tdb.startApp({ env: { MEMSCOPE_USER_VECTOR_INDEX_MIN: "0", MEMSCOPE_EXACT_SCAN_MAX: String(EXACT_SCAN_MAX) } });
  });
  afterAll(async () => {
    await app?.stop();
    await tdb?.stop();
  });

  const search = async (user: string, query: string) => {
    const r = await fetch(`${app.url}/api/v1/users/${user}/memories/search`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query, k: K, dry_run: true, weights: COSINE_ONLY }),
    });
    expect(r.status).toBe(200);
    return (await r.json()) as { vector_path: string; data: { memory: { id: string; user_id: string }; breakdown: { cosine: number; matched_by: string[] } }[] };
  };

  it("a user with few memories is searched by an exact scan of their rows and gets the exact top k", async () => {
    const query = "prefers the bright coffee after work";
    const body = await search(small, query);
    expect(body.vector_path).toBe("exact");
    expect(body.data.every((d) => d.memory.user_id === small)).toBe(true);
    expectExactTopK(body.data, exactTop(smallRows, query));
  });

  it("a large user's ordinary query stays on the HNSW graph", async () => {
    const query = "Often prefers the quiet garden in Lisbon";
    const exact = exactTop(bigRows, query);
    expect(exact[K - 1].cosine).toBeGreaterThan(THIN_KTH_COSINE);
    const body = await search(big, query);
    expect(body.vector_path).toBe("hnsw");
  });

  it("a large user's query whose HNSW candidates are thin falls back to an exact scan and gets the exact top k", async () => {
    const query = "quokka";
    const exact = exactTop(bigRows, query);
    // The rare word is in three memories only: the 10th neighbour is far, under the floor.
    expect(exact[K - 1].cosine).toBeLessThan(THIN_KTH_COSINE);
    const body = await search(big, query);
    expect(body.vector_path).toBe("hnsw_then_exact");
    expectExactTopK(body.data, exact);
  });
});
