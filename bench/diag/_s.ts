import fs from "node:fs";
import { openDatabase } from "../../lib/db/open-database";
import { activeProvider } from "../../lib/embeddings/active-model";
import { toVectorLiteral } from "../../lib/embeddings/embedding-provider";
import { now, stats, ms } from "../lib/common";
import { makeQueryGenerator } from "../lib/memory-text";
const dir = process.argv[2] ?? "/tmp/ctxdata";
const db = await openDatabase({ kind: "pglite", dataDir: dir });
const user = process.argv[3] ?? "bench-context-user";
const queries = makeQueryGenerator(99);
const acc: Record<string, number[]> = {};
const lap = (k: string, t: number) => ((acc[k] ??= []).push(now() - t), now());
for (let i = 0; i < 120; i++) {
  let t = now();
  const provider = await activeProvider(db.sql); t = lap("activeProvider", t);
  const [qv] = await provider.embed([queries()]); const q = toVectorLiteral(qv); t = lap("embed", t);
  await db.sql.transaction(async (tx) => {
    await tx.exec(`SET LOCAL hnsw.iterative_scan = relaxed_order; SET LOCAL hnsw.ef_search = 100`); t = lap("set", t);
    await tx.query(`SELECT e.memory_id AS id, 1 - (e.embedding::vector(256) <=> $3::vector(256)) AS cosine, m.importance_score, m.last_accessed_at
         FROM memory_embeddings e JOIN memories m ON m.id = e.memory_id
        WHERE e.model = $1 AND e.user_id = $2 AND m.status = 'active'
        ORDER BY e.embedding::vector(256) <=> $3::vector(256) LIMIT 50`, [provider.model, user, q]); t = lap("vector", t);
    const words = queries().toLowerCase().split(/[^a-z0-9]+/).filter((w) => w.length > 2).slice(0, 32);
    const hits = await tx.query<{id: string}>(`SELECT p.id, p.importance_score, p.last_accessed_at FROM (
           SELECT m.id, m.search_tsv, m.importance_score, m.last_accessed_at FROM memories m
            WHERE m.user_id = $1 AND m.status = 'active' AND m.search_tsv @@ to_tsquery('simple', $2)
            LIMIT 200) p ORDER BY ts_rank(p.search_tsv, to_tsquery('simple', $2)) DESC LIMIT 50`, [user, words.join(" | ")]); t = lap("text", t);
    await tx.query(`SELECT memory_id AS id, 1 - (embedding::vector(256) <=> $2::vector(256)) AS cosine FROM memory_embeddings WHERE model = $1 AND memory_id = ANY($3::uuid[])`, [provider.model, q, hits.map((h) => h.id)]); t = lap("textcos", t);
    await tx.query(`SELECT * FROM memories WHERE id = ANY($1::uuid[])`, [hits.slice(0, 10).map((h) => h.id)]); t = lap("load10", t);
  }); t = lap("commit", t);
  await db.sql.query(`INSERT INTO memory_retrievals (id, user_id, query, embedding_model, k, weights, dry_run, latency_ms, result_count) VALUES (gen_random_uuid(), $1, 'q', 'm', 10, '{}'::jsonb, true, 1, 0)`, [user]); t = lap("log insert", t);
}
for (const [k, v] of Object.entries(acc)) { const s = stats(v.slice(20)); console.log(k.padEnd(16), "p50", ms(s.p50), "p95", ms(s.p95)); }
await db.close();
