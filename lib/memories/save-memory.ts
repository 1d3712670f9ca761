import "server-only";
import { randomUUID } from "node:crypto";
import type { ProjectSql } from "../db/project-sql";
import { configuredChat } from "../chat/chat-provider";
import { toVectorLiteral } from "../embeddings/embedding-provider";
import { writeProviders } from "../embeddings/active-model";
import { decideDuplicate } from "./dedupe-decision";
import { requireMemory } from "./load-memory";
import { MEMORY_COLUMNS, serializeMemory, snapshot, type MemoryRow } from "./memory-row";
import { contentKey } from "./normalize-content";
import { recordEvent } from "./record-event";
import type { Actor, Dedupe, Memory, MemoryCreate } from "./schemas";
import { embedForWrite, writeEmbeddings, type MemoryVector } from "./write-embeddings";
import { requireConversationOfUser } from "../conversations/require-conversation-of-user";

export const DEFAULT_DEDUPE_THRESHOLD = 0.95;
const CONFIDENCE_BUMP = 0.1;

export type SaveResult = { memory: Memory; dedupe: Dedupe; created: boolean };

/** Runs inside the save's write transaction, so a caller's own rows commit (or roll back) with it. */
export type WithinSave = (tx: ProjectSql, memory: Memory) => Promise<void>;

/**
 * The design doc's save_memory. Identical after normalization: no new row, the
 * existing memory's confidence goes up. A near duplicate (cosine >= threshold, same
 * user and model): a configured chat model decides replace / merge / keep_both;
 * without one both are kept and the pair goes to the review queue.
 */
export async function saveMemory(
  sql: ProjectSql,
  userId: string,
  input: MemoryCreate & { dedupe_threshold?: number },
  within: WithinSave = async () => {},
): Promise<SaveResult> {
  const actor: Actor = input.actor ?? "api";
  if (input.source_session_id) {
    await requireConversationOfUser(sql, input.source_session_id, userId, { field: "source_session_id", missing: "invalid" });
  }
  const key = contentKey(input.content);

  const [same] = await sql.query<{ id: string }>(
    `SELECT id FROM memories WHERE project_id = $3 AND user_id = $1 AND content_key = $2 AND status = 'active' ORDER BY created_at LIMIT 1`,
    [userId, key, sql.projectId],
  );
  if (same) {
    const memory = await sql.transaction(async (tx) => {
      const before = await requireMemory(tx, same.id, { forUpdate: true });
      const [row] = await tx.query<MemoryRow>(
        `UPDATE memories m SET confidence = LEAST(1, confidence + $2), version = version + 1, updated_at = now()
          WHERE id = $1 AND project_id = $3 RETURNING ${MEMORY_COLUMNS}`,
        [same.id, CONFIDENCE_BUMP, tx.projectId],
      );
      const after = serializeMemory(row);
      await recordEvent(tx, { memoryId: same.id, type: "dedupe", actor, before: snapshot(before), after: snapshot(after), reason: "identical content saved again: confidence raised" });
      await within(tx, after);
      return after;
    });
    return { memory, dedupe: { action: "duplicate", similar_id: same.id, similarity: 1, reason: "identical after normalization" }, created: false };
  }

  const providers = await writeProviders(sql);
  const vectors = await embedForWrite(providers, input.content);
  const active = vectors[0];
  const threshold = input.dedupe_threshold ?? DEFAULT_DEDUPE_THRESHOLD;
  const [near] = await sql.query<{ id: string; content: string; similarity: number }>(
    `SELECT m.id, m.content, 1 - (e.embedding::vector(${active.provider.dimensions}) <=> $3::vector(${active.provider.dimensions})) AS similarity
       FROM memory_embeddings e JOIN memories m ON m.project_id = e.project_id AND m.id = e.memory_id
      WHERE e.model = $1 AND e.user_id = $2 AND e.project_id = $4 AND m.status = 'active'
      ORDER BY e.embedding::vector(${active.provider.dimensions}) <=> $3::vector(${active.provider.dimensions})
      LIMIT 1`,
    [active.provider.model, userId, toVectorLiteral(active.vector), sql.projectId],
  );

  if (near && near.similarity >= threshold) {
    const similarity = Number(near.similarity);
    const chat = configuredChat();
    if (chat) {
      const decision = await decideDuplicate(chat, near.content, input.content);
      if (decision.action === "replace" || decision.action === "merge") {
        const content = decision.action === "replace" ? input.content : decision.merged_content!.trim();
        const contentVectors = decision.action === "replace" ? vectors : await embedForWrite(providers, content);
        const memory = await sql.transaction(async (tx) => {
          const before = await requireMemory(tx, near.id, { forUpdate: true });
          const [row] = await tx.query<MemoryRow>(
            `UPDATE memories m SET content = $2, content_key = $3, importance_score = GREATEST(importance_score, $4),
                    confidence = LEAST(1, confidence + $5), version = version + 1, updated_at = now()
              WHERE id = $1 AND project_id = $6 RETURNING ${MEMORY_COLUMNS}`,
            [near.id, content, contentKey(content), input.importance_score ?? 0, CONFIDENCE_BUMP, tx.projectId],
          );
          await writeEmbeddings(tx, near.id, userId, contentVectors);
          const after = serializeMemory(row);
          await recordEvent(tx, {
            memoryId: near.id,
            type: "dedupe",
            actor: "system",
            before: snapshot(before),
            after: snapshot(after),
            reason: `${decision.action} (chat model, similarity ${similarity.toFixed(3)}): ${decision.reason}`,
          });
          await within(tx, after);
          return after;
        });
        return {
          memory,
          dedupe: { action: decision.action === "replace" ? "replaced" : "merged", similar_id: near.id, similarity, reason: decision.reason },
          created: false,
        };
      }
      const memory = await insertMemory(sql, userId, input, key, vectors, actor, `kept both (chat model): ${decision.reason}`, within);
      return { memory, dedupe: { action: "kept_both", similar_id: near.id, similarity, reason: decision.reason }, created: true };
    }
    const memory = await insertMemory(sql, userId, input, key, vectors, actor, null, within, { otherId: near.id, similarity });
    return {
      memory,
      dedupe: { action: "kept_both", similar_id: near.id, similarity, reason: "no chat model configured: both kept, pair queued for review" },
      created: true,
    };
  }

  const memory = await insertMemory(sql, userId, input, key, vectors, actor, null, within);
  return { memory, dedupe: { action: "created" }, created: true };
}

async function insertMemory(
  sql: ProjectSql,
  userId: string,
  input: MemoryCreate,
  key: string,
  vectors: MemoryVector[],
  actor: Actor,
  reason: string | null,
  within: WithinSave,
  review?: { otherId: string; similarity: number },
): Promise<Memory> {
  return sql.transaction(async (tx) => {
    const id = randomUUID();
    const [row] = await tx.query<MemoryRow>(
      `INSERT INTO memories AS m (id, app_id, user_id, memory_type, content, structured_data, source_session_id,
                                  importance_score, confidence, content_key, project_id)
       VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8, $9, $10, $11)
       RETURNING ${MEMORY_COLUMNS}`,
      [
        id,
        input.app_id ?? null,
        userId,
        input.memory_type,
        input.content,
        input.structured_data ? JSON.stringify(input.structured_data) : null,
        input.source_session_id ?? null,
        input.importance_score ?? 0.5,
        input.confidence ?? 0.8,
        key,
        tx.projectId,
      ],
    );
    await writeEmbeddings(tx, id, userId, vectors);
    const memory = serializeMemory(row);
    await recordEvent(tx, { memoryId: id, type: "create", actor, after: snapshot(memory), reason });
    if (review) {
      await tx.query(
        `INSERT INTO memory_review_items (id, user_id, kind, memory_id, other_memory_id, similarity, reason, source_session_id, project_id)
         VALUES ($1, $2, 'duplicate', $3, $4, $5, $6, $7, $8)`,
        [
          randomUUID(),
          userId,
          id,
          review.otherId,
          review.similarity,
          "near duplicate saved without a chat model to decide",
          input.source_session_id ?? null,
          tx.projectId,
        ],
      );
    }
    await within(tx, memory);
    return memory;
  });
}
