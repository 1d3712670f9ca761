import "server-only";
import { randomUUID } from "node:crypto";
import type { z } from "zod";
import { notFound, unprocessable } from "../errors/domain-errors";
import type { ProjectSql } from "../db/project-sql";
import type { EmbeddingProvider } from "../embeddings/embedding-provider";
import { MEMORY_COLUMNS, serializeMemory, snapshot, type MemoryRow } from "./memory-row";
import { contentKey } from "./normalize-content";
import { recordEvent, type EventInput } from "./record-event";
import type { Actor, Memory, MemoryType } from "./schemas";
import type { MemoryVector } from "./write-embeddings";

// Row-level building blocks the curation operations share. Every function taking `tx`
// runs inside the caller's transaction; embedding happens before it (embedTexts).

export type NewMemory = {
  userId: string;
  appId?: string | null;
  memoryType: MemoryType;
  content: string;
  structuredData?: Record<string, unknown> | null;
  sourceSessionId?: string | null;
  importance?: number;
  confidence?: number;
};

/** Inserts one memory row (the same columns save-memory writes) and returns it. */
export async function insertMemoryRow(tx: ProjectSql, m: NewMemory): Promise<Memory> {
  const [row] = await tx.query<MemoryRow>(
    `INSERT INTO memories AS m (id, app_id, user_id, memory_type, content, structured_data, source_session_id,
                                importance_score, confidence, content_key, project_id)
     VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8, $9, $10, $11)
     RETURNING ${MEMORY_COLUMNS}`,
    [
      randomUUID(),
      m.appId ?? null,
      m.userId,
      m.memoryType,
      m.content,
      m.structuredData && Object.keys(m.structuredData).length ? JSON.stringify(m.structuredData) : null,
      m.sourceSessionId ?? null,
      m.importance ?? 0.5,
      m.confidence ?? 0.8,
      contentKey(m.content),
      tx.projectId,
    ],
  );
  return serializeMemory(row);
}

/**
 * Inserts several memory rows in one statement (the columns insertMemoryRow writes); returns them
 * in the order given. A MEMORY.md edit adds up to thousands at once: one statement each cost a
 * round trip and its planning per row (docs/benchmarks.md, issue 41).
 */
export async function insertMemoryRows(tx: ProjectSql, ms: NewMemory[]): Promise<Memory[]> {
  if (!ms.length) return [];
  const ids = ms.map(() => randomUUID());
  const rows = await tx.query<MemoryRow>(
    `INSERT INTO memories AS m (id, app_id, user_id, memory_type, content, structured_data, source_session_id,
                                importance_score, confidence, content_key, project_id)
     SELECT u.id, u.app_id, u.user_id, u.memory_type::memory_type, u.content, u.structured_data::jsonb, u.source_session_id,
            u.importance_score, u.confidence, u.content_key, $11
       FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::uuid[], $8::float8[], $9::float8[], $10::text[])
         AS u(id, app_id, user_id, memory_type, content, structured_data, source_session_id, importance_score, confidence, content_key)
     RETURNING ${MEMORY_COLUMNS}`,
    [
      ids,
      ms.map((m) => m.appId ?? null),
      ms.map((m) => m.userId),
      ms.map((m) => m.memoryType),
      ms.map((m) => m.content),
      ms.map((m) => (m.structuredData && Object.keys(m.structuredData).length ? JSON.stringify(m.structuredData) : null)),
      ms.map((m) => m.sourceSessionId ?? null),
      ms.map((m) => m.importance ?? 0.5),
      ms.map((m) => m.confidence ?? 0.8),
      ms.map((m) => contentKey(m.content)),
      tx.projectId,
    ],
  );
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.map((id) => serializeMemory(byId.get(id)!));
}

/** Vectors for several texts from every write provider, one list per text. Outside any transaction. */
export async function embedTexts(providers: EmbeddingProvider[], texts: string[]): Promise<MemoryVector[][]> {
  const out: MemoryVector[][] = texts.map(() => []);
  if (!texts.length) return out;
  for (const provider of providers) {
    const vectors = await provider.embed(texts);
    vectors.forEach((vector, i) => out[i].push({ provider, vector }));
  }
  return out;
}

/** Locks memories (in id order, so concurrent operations cannot deadlock) and returns them by id. */
export async function lockMemories(tx: ProjectSql, ids: string[]): Promise<Map<string, Memory>> {
  if (!ids.length) return new Map();
  const rows = await tx.query<MemoryRow>(
    `SELECT ${MEMORY_COLUMNS} FROM memories m WHERE m.id = ANY($1::uuid[]) AND m.project_id = $2 ORDER BY m.id FOR UPDATE`,
    [ids, tx.projectId],
  );
  return new Map(rows.map((r) => [r.id, serializeMemory(r)]));
}

/**
 * Checks that every id exists, belongs to one user (`userId` when given) and is active.
 * `field` names the list in error details, e.g. ids[2].
 */
export function checkSources(
  ids: string[],
  found: Map<string, Memory>,
  opts: { field: string; userId?: string; requireActive?: boolean },
): Memory[] {
  const missing = ids.map((id, i) => ({ id, i })).filter(({ id }) => !found.has(id));
  if (missing.length) {
    const e = notFound("Memory", missing[0].id);
    e.details.splice(0, e.details.length, ...missing.map(({ id, i }) => ({ field: `${opts.field}[${i}]`, message: "unknown memory", id })));
    throw e;
  }
  const list = ids.map((id) => found.get(id)!);
  const userId = opts.userId ?? list[0].user_id;
  const foreign = list.map((m, i) => ({ m, i })).filter(({ m }) => m.user_id !== userId);
  if (foreign.length) {
    throw unprocessable(
      opts.userId ? `Memories must belong to user ${userId}` : "Memories must all belong to the same user",
      foreign.map(({ m, i }) => ({ field: `${opts.field}[${i}]`, message: `belongs to another user`, id: m.id })),
    );
  }
  if (opts.requireActive !== false) {
    const inactive = list.map((m, i) => ({ m, i })).filter(({ m }) => m.status !== "active");
    if (inactive.length) {
      throw unprocessable(
        "Only active memories can be used here",
        inactive.map(({ m, i }) => ({ field: `${opts.field}[${i}]`, message: `memory is ${m.status}`, id: m.id })),
      );
    }
  }
  return list;
}

/** Sets a memory's status (version + 1) and records the event; no-op when already there. */
export async function setStatusRow(
  tx: ProjectSql,
  before: Memory,
  status: Memory["status"],
  event: Omit<EventInput, "memoryId" | "before" | "after">,
): Promise<Memory> {
  if (before.status === status) return before;
  const [row] = await tx.query<MemoryRow>(
    `UPDATE memories m SET status = $2::memory_status, version = version + 1, updated_at = now() WHERE id = $1 AND project_id = $3 RETURNING ${MEMORY_COLUMNS}`,
    [before.id, status, tx.projectId],
  );
  const after = serializeMemory(row);
  await recordEvent(tx, { ...event, memoryId: before.id, before: snapshot(before), after: snapshot(after) });
  return after;
}

/** A relation written by the system (merged_into, derived_from). */
export async function addSystemRelation(
  tx: ProjectSql,
  sourceId: string,
  targetId: string,
  type: "merged_into" | "derived_from",
  note: string | null = null,
): Promise<void> {
  await tx.query(
    `INSERT INTO memory_relations (id, source_id, target_id, relation_type, strength, note, created_by, project_id)
     VALUES ($1, $2, $3, $4::memory_relation_type, 1, $5, 'system', $6)`,
    [randomUUID(), sourceId, targetId, type, note, tx.projectId],
  );
}

export function actorOf(actor: Actor | undefined): Actor {
  return actor ?? "api";
}

