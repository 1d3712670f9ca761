import { randomUUID } from "node:crypto";
import { LEXICAL_MODEL } from "../embeddings/lexical-embedder";
import { createRelation } from "../memories/memory-relations";
import { saveMemory } from "../memories/save-memory";
import { DEFAULT_WEIGHTS } from "../memories/schemas";
import { scoreMemory } from "../memories/score-memory";
import type { ProjectSql } from "../db/project-sql";
import { demoMemoryCreatedAt } from "./demo-clock";
import { DEMO_MEMORIES, DEMO_RELATIONS, type DemoMemory } from "./demo-memories";

const DAY_MS = 86_400_000;

/**
 * Saves the demo memories through the product's own write path, then ages them. Every number a
 * page shows comes from rows a real run would have left: a memory's access count is the number
 * of logged retrievals that returned it (its access log, the dashboard's retrieval count), its
 * last use is the newest of them, and its history starts when it was created.
 */
export async function seedDemoMemories(sql: ProjectSql, now = Date.now()): Promise<number> {
  const ids = new Map<string, string>();
  const createdAt = new Map<string, number>();
  for (const m of DEMO_MEMORIES) {
    const r = await saveMemory(sql, m.user, {
      memory_type: m.type,
      content: m.content,
      structured_data: m.structured ?? null,
      importance_score: m.importance,
      actor: "system",
      dedupe_threshold: m.dedupeThreshold,
      source_session_id: m.session ?? null,
    });
    ids.set(m.content, r.memory.id);
    const created = demoMemoryCreatedAt(now, m.createdDaysAgo);
    createdAt.set(r.memory.id, created);
    // saveMemory stamps "now": the memory, its "create" event and any review item it raised
    // were made when the demo says it was learned.
    await sql.query(`UPDATE memories SET created_at = $2, updated_at = $2 WHERE id = $1`, [r.memory.id, new Date(created).toISOString()]);
    await sql.query(`UPDATE memory_events SET created_at = $2 WHERE memory_id = $1`, [r.memory.id, new Date(created).toISOString()]);
    await sql.query(`UPDATE memory_review_items SET created_at = $2 WHERE memory_id = $1`, [r.memory.id, new Date(created).toISOString()]);
    await seedRetrievals(sql, r.memory.id, m, created, now);
  }
  for (const [from, to, type] of DEMO_RELATIONS) {
    const source = ids.get(from)!;
    const target = ids.get(to)!;
    await createRelation(sql, source, { target_id: target, relation_type: type, strength: 0.7, actor: "system" });
    // Related when the later of the two was learned (not at seed time).
    const at = new Date(Math.max(createdAt.get(source)!, createdAt.get(target)!)).toISOString();
    await sql.query(`UPDATE memory_relations SET created_at = $3 WHERE source_id = $1 AND target_id = $2`, [source, target, at]);
    await sql.query(`UPDATE memory_events SET created_at = $2 WHERE memory_id = $1 AND event_type = 'relate'`, [source, at]);
  }
  return ids.size;
}

/**
 * The demo's access history as logged retrievals: `accessCount` searches that each returned this
 * memory (rank 1), spread between its creation and its last use, the newest at `accessedDaysAgo`.
 * The memory's access_count and last_accessed_at are then what those rows say.
 */
async function seedRetrievals(sql: ProjectSql, memoryId: string, m: DemoMemory, created: number, now: number) {
  const n = m.accessCount ?? 0;
  if (n === 0 || m.accessedDaysAgo === undefined) return;
  const last = now - m.accessedDaysAgo * DAY_MS;
  let previous: number | null = null;
  for (let k = 0; k < n; k++) {
    // k = n - 1 is the last use; the first one comes a share of the way after creation.
    const at = last + ((created - last) * (n - 1 - k)) / n;
    const cosine = 0.62 + 0.03 * ((k * 7 + m.content.length) % 9);
    const score = scoreMemory({ cosine, importance: m.importance, lastAccessedAt: previous === null ? null : new Date(previous), matchedBy: ["vector"] }, DEFAULT_WEIGHTS, at);
    const retrievalId = randomUUID();
    const iso = new Date(at).toISOString();
    await sql.query(
      `INSERT INTO memory_retrievals (id, user_id, query, conversation_id, embedding_model, k, weights, dry_run, latency_ms, result_count, project_id, created_at, access_recorded)
       VALUES ($1, $2, $3, $4, $5, 5, $6::jsonb, false, $7, 1, $8, $9, true)`,
      [retrievalId, m.user, m.query ?? m.content, m.session ?? null, LEXICAL_MODEL, JSON.stringify(DEFAULT_WEIGHTS), 2 + ((k * 5 + m.content.length) % 11), sql.projectId, iso],
    );
    await sql.query(
      `INSERT INTO memory_retrieval_hits (retrieval_id, rank, memory_id, score, cosine, time_decay, importance, project_id)
       VALUES ($1, 1, $2, $3, $4, $5, $6, $7)`,
      [retrievalId, memoryId, score.final, score.cosine, score.time_decay, score.importance, sql.projectId],
    );
    previous = at;
  }
  await sql.query(`UPDATE memories SET access_count = $2, last_accessed_at = $3 WHERE id = $1`, [memoryId, n, new Date(last).toISOString()]);
}
