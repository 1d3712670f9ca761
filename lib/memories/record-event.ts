import { randomUUID } from "node:crypto";
import type { ProjectSql } from "../db/project-sql";
import type { Actor } from "./schemas";

export type EventInput = {
  memoryId: string;
  type: "create" | "update" | "merge" | "unmerge" | "archive" | "restore" | "compress" | "dedupe" | "delete" | "import" | "relate";
  actor: Actor;
  before?: Record<string, unknown> | null;
  after?: Record<string, unknown> | null;
  reason?: string | null;
  batchId?: string | null;
  /** When it happened, if not now (imported history keeps its source's times). */
  createdAt?: string | null;
};

/** Appends several history events in one statement (in the order given), inside the write's transaction. */
export async function recordEvents(tx: ProjectSql, es: EventInput[]): Promise<void> {
  if (!es.length) return;
  await tx.query(
    `INSERT INTO memory_events (id, memory_id, event_type, actor, before, after, reason, batch_id, created_at, project_id, actor_label)
     SELECT u.id, u.memory_id, u.event_type, u.actor::actor, u.before::jsonb, u.after::jsonb, u.reason, u.batch_id,
            COALESCE(u.created_at, now()), $10, $11
       FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::uuid[], $9::timestamptz[])
         WITH ORDINALITY AS u(id, memory_id, event_type, actor, before, after, reason, batch_id, created_at, n)
      ORDER BY u.n`,
    [
      es.map(() => randomUUID()),
      es.map((e) => e.memoryId),
      es.map((e) => e.type),
      es.map((e) => e.actor),
      es.map((e) => (e.before ? JSON.stringify(e.before) : null)),
      es.map((e) => (e.after ? JSON.stringify(e.after) : null)),
      es.map((e) => e.reason ?? null),
      es.map((e) => e.batchId ?? null),
      es.map((e) => e.createdAt ?? null),
      tx.projectId,
      tx.actorLabel,
    ],
  );
}

/** Appends one history event; called inside the write's transaction. The runner says who acts. */
export async function recordEvent(tx: ProjectSql, e: EventInput): Promise<void> {
  await tx.query(
    `INSERT INTO memory_events (id, memory_id, event_type, actor, before, after, reason, batch_id, created_at, project_id, actor_label)
     VALUES ($1, $2, $3, $4, $5::jsonb, $6::jsonb, $7, $8, COALESCE($9::timestamptz, now()), $10, $11)`,
    [
      randomUUID(),
      e.memoryId,
      e.type,
      e.actor,
      e.before ? JSON.stringify(e.before) : null,
      e.after ? JSON.stringify(e.after) : null,
      e.reason ?? null,
      e.batchId ?? null,
      e.createdAt ?? null,
      tx.projectId,
      tx.actorLabel,
    ],
  );
}
