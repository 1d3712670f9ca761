import { createRelation } from "../../memories/memory-relations";
import { saveMemory } from "../../memories/save-memory";
import type { Database } from "../open-database";
import { DEFAULT_PROJECT_ID, projectSql } from "../project-sql";
import { DEMO_MEMORIES, DEMO_RELATIONS } from "./demo-memories";

const DAY_MS = 86_400_000;

/** Saves the demo memories through the product's own write path, then ages them. */
export async function seedDemoMemories(db: Database): Promise<number> {
  const sql = projectSql(db.sql, DEFAULT_PROJECT_ID);
  const ids = new Map<string, string>();
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
    // Demo history: when it was learned and last used (saveMemory stamps "now").
    const now = Date.now();
    await db.sql.query(
      `UPDATE memories SET created_at = $2, updated_at = $2, last_accessed_at = $3, access_count = $4 WHERE id = $1`,
      [
        r.memory.id,
        new Date(now - m.createdDaysAgo * DAY_MS).toISOString(),
        m.accessedDaysAgo === undefined ? null : new Date(now - m.accessedDaysAgo * DAY_MS).toISOString(),
        m.accessCount ?? 0,
      ],
    );
  }
  for (const [from, to, type] of DEMO_RELATIONS) {
    await createRelation(sql, ids.get(from)!, { target_id: ids.get(to)!, relation_type: type, strength: 0.7, actor: "system" });
  }
  return ids.size;
}
