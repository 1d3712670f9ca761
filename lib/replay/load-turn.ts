import "server-only";
import type { ProjectSql } from "../db/project-sql";
import { NotFoundError, ValidationError } from "../errors/domain-errors";
import { toVersion, type ProfileVersionRow } from "../profiles/profile-versions";
import type { ProfileVersion } from "../profiles/schemas";
import type { Anchor } from "../threads/load-thread";
import { ThreadWalker } from "../threads/extract-thread";
import { loadThreadIds } from "../threads/load-thread";
import { UUID_NIL } from "../threads/uuid-nil";
import { parsePgTimestamp } from "../db/parse-timestamp";
import type { ActiveModel } from "../embeddings/active-model";
import type { UserCountsByStatus } from "../memories/as-of/search-as-of";
import type { ModelPreset } from "../models/model-presets";
import { PRESETS_KEY } from "../models/model-settings";

/** A turn to replay with the conversation it belongs to and where its history ends. */
export type ReplayTurn = {
  conversationId: string;
  appId: string;
  endUserId: string | null;
  messageId: string;
  query: string;
  /** Exact ISO time of the turn (millisecond precision, as stored). */
  createdAt: string;
  /**
   * The last turn of the thread before this one, by Dify's thread rule (the parent, or the
   * row just before it when the parent is UUID_NIL); null when the turn starts its thread.
   */
  leafId: string | null;
  /** Exact ISO time of the leaf (null without one). */
  leafCreatedAt: string | null;
  /** The leaf's keyset position (created_at as PostgreSQL's text, microseconds exact), for the history read; null without a leaf. */
  leafAnchor: Anchor | null;
  /** Turns before it in its thread. */
  index: number;
  /** The app's profile version in force at the turn's instant (profileInForce at createdAt), null when none was. */
  profileAtTurn: ProfileVersion | null;
  /** The retrieval logged around the turn (findLoggedRetrieval's rule, lib/replay/logged-retrieval.ts), null when none. */
  logged: LoggedRetrieval | null;
  /** The saved model presets (savedPresets: today's, not the turn's), read with the turn. */
  presets: ModelPreset[];
  /**
   * What the as-of search of the conversation's end user at the turn's instant reads first, read
   * with the turn: the embedding model active then (activeModelAt) and the trigger-kept counts
   * (readAsOfCounts). null when no model change is recorded by then (activeModelAt's fallbacks
   * are read on their own) or the conversation has no end user.
   */
  searchAtTurn: { userId: string; model: ActiveModel; counts: UserCountsByStatus } | null;
};

/** A retrieval logged for the conversation around a turn, with its hits by rank. */
export type LoggedRetrieval = {
  retrieval_id: string;
  created_at: string;
  query: string;
  embedding_model: string;
  k: number;
  weights: Record<string, number>;
  dry_run: boolean;
  hits: { memory_id: string; rank: number; score: number; cosine: number; time_decay: number; importance: number }[];
};

/**
 * A retrieval logged "around" a turn: logged for its conversation after the thread's previous
 * turn and at most AFTER_TURN_MS after the turn itself (an agent retrieves, then the turn is
 * written; a client that writes the question first retrieves just after). The one with the
 * turn's query wins, then the nearest in time. Times are the turn's and the leaf's to the
 * millisecond, as the API states them.
 */
const AFTER_TURN_MS = 10 * 60_000;

/** Thread rows read with the turn; a longer thread is walked by loadThreadIds, page by page. */
const THREAD_PAGE = 2000;

/**
 * Reads a turn of a conversation of the caller's project. An unknown conversation, a
 * conversation of another project and a message of another conversation all answer 404.
 *
 * One statement: the conversation, the turn, its history leaf and the thread up to that leaf
 * (ids and parents, packed as one JSON text: PGlite decodes rows column by column in JS), the
 * profile version in force at the turn and the retrieval logged around it with its hits. It
 * replaced eight (conversation, turn, parent, the leaf's position, the thread's pages, the
 * profile, the logged retrieval, its hits): a scrubber step replays one turn after another,
 * and through PGlite each statement costs CPU of its own. The leaf's position it returns
 * spares the history read its own lookup.
 */
export async function loadReplayTurn(sql: ProjectSql, conversationId: string, messageId: string): Promise<ReplayTurn> {
  const [row] = await sql.query<{
    app_id: string;
    end_user_id: string | null;
    found: boolean;
    query: string | null;
    created_at: Date | string | null;
    leaf_id: string | null;
    leaf_created_at: Date | string | null;
    leaf_at: string | null;
    leaf_seq: number | null;
    thread: string | null;
    pv_version: number | null;
    pv_effective_from: Date | string | null;
    pv_settings: unknown;
    pv_note: string | null;
    pv_created_by: string | null;
    pv_created_at: Date | string | null;
    logged: string | null;
    presets: ModelPreset[] | null;
    mo_model: string | null;
    mo_dimensions: number | null;
    mo_kind: ActiveModel["kind"] | null;
    user_counts: string | null;
    embedded: string | number | null;
  }>(
    `WITH t AS (SELECT query, parent_message_id, created_at, seq, date_trunc('milliseconds', created_at) AS at_ms
                  FROM messages WHERE conversation_id = $1 AND id = $2 AND project_id = $3),
     leaf AS (
       -- The parent, when it is a row of this conversation (else the thread ends at the turn)...
       SELECT p.id, p.created_at, p.seq FROM t JOIN messages p ON p.conversation_id = $1 AND p.project_id = $3 AND p.id = t.parent_message_id
        WHERE t.parent_message_id <> $4::uuid
       UNION ALL
       -- ...or, for a UUID_NIL parent, the row just before the turn (Dify: legacy linear threads).
       (SELECT p.id, p.created_at, p.seq FROM t JOIN messages p ON p.conversation_id = $1 AND p.project_id = $3 AND (p.created_at, p.seq) < (t.created_at, t.seq)
         WHERE t.parent_message_id = $4::uuid
         ORDER BY p.created_at DESC, p.seq DESC LIMIT 1))
     SELECT c.app_id, c.end_user_id, t.created_at IS NOT NULL AS found, t.query, t.created_at, leaf.id AS leaf_id, leaf.created_at AS leaf_created_at,
            leaf.created_at::text AS leaf_at, leaf.seq AS leaf_seq,
            (SELECT json_agg(json_build_array(r.id, r.parent_message_id) ORDER BY r.created_at DESC, r.seq DESC)::text
               FROM (SELECT m.id, m.parent_message_id, m.created_at, m.seq FROM messages m
                      WHERE m.conversation_id = $1 AND m.project_id = $3 AND (m.created_at, m.seq) <= (leaf.created_at, leaf.seq)
                      ORDER BY m.created_at DESC, m.seq DESC LIMIT ${THREAD_PAGE}) r) AS thread,
            pv.version AS pv_version, pv.effective_from AS pv_effective_from, pv.settings AS pv_settings, pv.note AS pv_note,
            pv.created_by AS pv_created_by, pv.created_at AS pv_created_at,
            (SELECT json_build_array(lr.id, lr.created_at, lr.query, lr.embedding_model, lr.k, lr.weights, lr.dry_run,
                      (SELECT coalesce(json_agg(json_build_array(h.memory_id, h.rank, h.score, h.cosine, h.time_decay, h.importance) ORDER BY h.rank), '[]'::json)
                         FROM memory_retrieval_hits h WHERE h.retrieval_id = lr.id AND h.project_id = $3))::text
               FROM memory_retrievals lr
              WHERE lr.project_id = $3 AND lr.conversation_id = $1 AND lr.created_at <= t.at_ms + make_interval(secs => $5::float8 / 1000)
                AND (leaf.created_at IS NULL OR lr.created_at > date_trunc('milliseconds', leaf.created_at))
              ORDER BY (lr.query = t.query) DESC, abs(extract(epoch FROM lr.created_at - t.at_ms)), lr.id
              LIMIT 1) AS logged,
            -- What the assembly and the as-of search would read next, each its own statement before:
            -- the saved presets, the model of then, the end user's counts (by status) and vectors of it.
            (SELECT s.value FROM app_settings s WHERE s.key = $6 AND s.project_id = $3) AS presets,
            mo.model AS mo_model, mo.dimensions AS mo_dimensions, mo.kind AS mo_kind,
            (SELECT json_object_agg(u.status, u.n)::text FROM (SELECT status::text AS status, sum(n) AS n FROM memory_user_counts
                                                                WHERE project_id = $3 AND user_id = c.end_user_id GROUP BY status) u) AS user_counts,
            (SELECT coalesce(sum(n), 0) FROM memory_embedding_counts WHERE project_id = $3 AND user_id = c.end_user_id AND model = mo.model) AS embedded
       FROM conversations c LEFT JOIN t ON true LEFT JOIN leaf ON true
       -- The profile in force at the turn's instant (profileInForce), read with the turn.
       LEFT JOIN LATERAL (SELECT v.version, v.effective_from, v.settings, v.note, v.created_by, v.created_at FROM agent_profile_versions v
                           WHERE v.project_id = $3 AND v.app_id = c.app_id AND v.effective_from <= t.at_ms
                           ORDER BY v.effective_from DESC, v.version DESC LIMIT 1) pv ON true
       -- The embedding model active at the turn's instant (activeModelAt).
       LEFT JOIN LATERAL (SELECT e.model, e.dimensions, e.kind FROM embedding_model_changes e
                           WHERE e.project_id = $3 AND e.active_from <= t.at_ms ORDER BY e.active_from DESC LIMIT 1) mo ON true
      WHERE c.id = $1 AND c.project_id = $3 AND c.deleted_at IS NULL`,
    [conversationId, messageId, sql.projectId, UUID_NIL, AFTER_TURN_MS, PRESETS_KEY],
  );
  if (!row) throw new NotFoundError("Conversation", conversationId, "conversation_id");
  if (!row.found) throw new NotFoundError("Message", messageId, "message_id");
  if (!row.query!.trim()) {
    throw new ValidationError(`Message ${messageId} has no query to replay`, [{ field: "message_id", message: "the turn has an empty query" }]);
  }
  const leafId = row.leaf_id;
  return {
    conversationId,
    appId: row.app_id,
    endUserId: row.end_user_id,
    messageId,
    query: row.query!,
    createdAt: new Date(row.created_at!).toISOString(),
    leafId,
    leafCreatedAt: row.leaf_created_at === null ? null : new Date(row.leaf_created_at).toISOString(),
    leafAnchor: leafId ? { id: leafId, created_at: row.leaf_at!, seq: Number(row.leaf_seq) } : null,
    index: leafId ? await threadLength(sql, conversationId, leafId, row.thread) : 0,
    profileAtTurn:
      row.pv_version === null
        ? null
        : toVersion({
            app_id: row.app_id,
            version: row.pv_version,
            effective_from: row.pv_effective_from!,
            settings: row.pv_settings,
            note: row.pv_note,
            created_by: row.pv_created_by,
            created_at: row.pv_created_at!,
          } satisfies ProfileVersionRow),
    logged: row.logged === null ? null : unpackLogged(row.logged),
    presets: row.presets ?? [],
    searchAtTurn:
      row.mo_model === null || row.end_user_id === null
        ? null
        : {
            userId: row.end_user_id,
            model: { model: row.mo_model, dimensions: Number(row.mo_dimensions), kind: row.mo_kind! },
            counts: { byStatus: countsByStatus(row.user_counts), embedded: Number(row.embedded) },
          },
  };
}

/** The per-status counts as numbers (json_object_agg of sums: numbers or, past 2^53, numeric text). */
function countsByStatus(packed: string | null): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries((packed ? JSON.parse(packed) : {}) as Record<string, number | string>)) out[k] = Number(v);
  return out;
}

/** Turns of the thread ending at the leaf: walked on the rows read with the turn, else (a longer thread) page by page. */
async function threadLength(sql: ProjectSql, conversationId: string, leafId: string, packed: string | null): Promise<number> {
  const rows = JSON.parse(packed ?? "[]") as [string, string | null][];
  const walker = new ThreadWalker();
  for (const [id, parentMessageId] of rows) if (!walker.push({ id, parentMessageId })) break;
  if (walker.done || rows.length < THREAD_PAGE) return walker.thread.length;
  return (await loadThreadIds(sql, conversationId, leafId)).length;
}

type PackedLogged = [string, string, string, string, number, Record<string, number>, boolean, [string, number, number, number, number, number][]];

/** The logged retrieval as its own two statements read it: times as the driver reads PostgreSQL's text, numbers as numbers. */
function unpackLogged(packed: string): LoggedRetrieval {
  const [id, createdAt, query, model, k, weights, dryRun, hits] = JSON.parse(packed) as PackedLogged;
  return {
    retrieval_id: id,
    created_at: parsePgTimestamp(createdAt, true).toISOString(),
    query,
    embedding_model: model,
    k: Number(k),
    weights,
    dry_run: dryRun,
    hits: hits.map(([memory_id, rank, score, cosine, time_decay, importance]) => ({
      memory_id,
      rank: Number(rank),
      score: Number(score),
      cosine: Number(cosine),
      time_decay: Number(time_decay),
      importance: Number(importance),
    })),
  };
}
