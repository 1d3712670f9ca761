import "server-only";
import type { ProjectSql } from "../db/project-sql";
import { ConfigurationError, NotFoundError } from "../errors/domain-errors";
import { difyMessageToTurn } from "./dify-turn";
import { problemOf } from "./field-readers";
import { orderTurns } from "./order-turns";
import type { ImportConversation, ParsedImport } from "./types";

// Reads a Dify PostgreSQL database, read-only (every transaction of the session is READ
// ONLY), through the tables of Dify's own models: apps, conversations, messages,
// message_files, end_users (message_feedbacks when present). Incremental: a cursor per
// project and source (the newest message already imported, by created_at then id) is kept
// in import_cursors; a run reads only messages after it, a page of conversations at a time.

export const DIFY_DB_ENV = "MEMSCOPE_DIFY_DATABASE_URL";
const PAGE_CONVERSATIONS = 200;

type PgClient = { query(text: string, params?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>; end(): Promise<void> };
export type MessageKey = { created_at: string; id: string };

export function difyDatabaseUrl(): string | null {
  return process.env[DIFY_DB_ENV]?.trim() || null;
}

/** The cursor's key: the database (host, port, name; never credentials) and the app. */
export function difySourceKey(url: string, appId: string): string {
  try {
    const u = new URL(url);
    return `dify-db:${u.hostname}:${u.port || "5432"}${u.pathname}:${appId}`;
  } catch {
    return `dify-db:${appId}`;
  }
}

export async function connectDify(url = difyDatabaseUrl()): Promise<PgClient> {
  if (!url) throw new ConfigurationError("dify_database_not_configured", `Set ${DIFY_DB_ENV} to a Dify PostgreSQL URL to import from Dify's database`, [{ field: DIFY_DB_ENV, message: "not set" }]);
  const { default: pg } = await import("pg");
  const client = new pg.Client({
    connectionString: url,
    // Read-only by construction: Dify's data is never written from here.
    options: "-c default_transaction_read_only=on -c statement_timeout=60000",
    connectionTimeoutMillis: 10_000,
  });
  // A connection Dify's server ends between queries would otherwise be an uncaught exception
  // (the server's end); the next query rejects with the cause.
  client.on("error", () => {});
  try {
    await client.connect();
  } catch (e) {
    await client.end().catch(() => {});
    throw new ConfigurationError("dify_database_unreachable", `Dify's database did not answer: ${(e as Error).message}`, [{ field: DIFY_DB_ENV, message: "unreachable" }]);
  }
  return client as unknown as PgClient;
}

export async function listDifyApps(client: PgClient, sql: ProjectSql, url: string) {
  const { rows } = await client.query(
    `SELECT a.id::text AS id, a.name, a.mode,
            (SELECT count(*) FROM conversations c WHERE c.app_id = a.id AND NOT c.is_deleted)::int AS conversations,
            (SELECT count(*) FROM messages m WHERE m.app_id = a.id)::int AS messages
       FROM apps a ORDER BY a.created_at DESC, a.id LIMIT 500`,
  );
  const keys = rows.map((r) => difySourceKey(url, String(r.id)));
  const cursors = keys.length
    ? await sql.query<{ source_key: string; cursor: MessageKey }>(`SELECT source_key, cursor FROM import_cursors WHERE project_id = $2 AND source_key = ANY($1::text[])`, [keys, sql.projectId])
    : [];
  const byKey = new Map(cursors.map((c) => [c.source_key, c.cursor]));
  return rows.map((r, i) => ({
    id: String(r.id),
    name: String(r.name ?? ""),
    mode: String(r.mode ?? ""),
    conversations: Number(r.conversations),
    messages: Number(r.messages),
    last_import_at: byKey.get(keys[i])?.created_at ? `${byKey.get(keys[i])!.created_at.replace(" ", "T")}Z` : null,
  }));
}

export async function readCursor(sql: ProjectSql, key: string): Promise<MessageKey | null> {
  const [row] = await sql.query<{ cursor: MessageKey }>(`SELECT cursor FROM import_cursors WHERE project_id = $2 AND source_key = $1`, [key, sql.projectId]);
  return row?.cursor ?? null;
}

export async function writeCursor(sql: ProjectSql, key: string, cursor: MessageKey): Promise<void> {
  await sql.query(
    `INSERT INTO import_cursors (project_id, source_key, cursor, updated_at) VALUES ($3, $1, $2::jsonb, now())
     ON CONFLICT (project_id, source_key) DO UPDATE SET cursor = EXCLUDED.cursor, updated_at = now()`,
    [key, JSON.stringify(cursor), sql.projectId],
  );
}

const AFTER = `(m.created_at, m.id) > ($2::timestamp, $3::uuid) AND (m.created_at, m.id) <= ($4::timestamp, $5::uuid)`;
const ZERO: MessageKey = { created_at: "1970-01-01 00:00:00", id: "00000000-0000-0000-0000-000000000000" };

export type DifyRun = {
  /** Conversations with messages after the cursor. */
  total: number;
  /** The newest message when the run started: the run reads up to here, and the cursor moves here. */
  upper: MessageKey | null;
  pages: AsyncGenerator<{ parsed: ParsedImport; firstKeys: Map<string, MessageKey> }>;
};

/** Plans a run over one app: what is new since `cursor`, read a page of conversations at a time. */
export async function planDifyRun(client: PgClient, difyAppId: string, cursor: MessageKey | null, opts: { app_id?: string }): Promise<DifyRun> {
  const app = await client.query(`SELECT id FROM apps WHERE id = $1::uuid`, [difyAppId]);
  if (!app.rows.length) throw new NotFoundError("Dify app", difyAppId, "dify_app_id");
  const from = cursor ?? ZERO;
  const top = await client.query(
    `SELECT m.created_at::text AS created_at, m.id::text AS id FROM messages m
      WHERE m.app_id = $1::uuid ORDER BY m.created_at DESC, m.id DESC LIMIT 1`,
    [difyAppId],
  );
  const upper = (top.rows[0] as MessageKey | undefined) ?? null;
  if (!upper) return { total: 0, upper: null, pages: (async function* () {})() };
  const bounds = [difyAppId, from.created_at, from.id, upper.created_at, upper.id];
  const count = await client.query(
    `SELECT count(DISTINCT m.conversation_id)::int AS n FROM messages m JOIN conversations c ON c.id = m.conversation_id AND NOT c.is_deleted
      WHERE m.app_id = $1::uuid AND ${AFTER}`,
    bounds,
  );
  const hasFeedback = (await client.query(`SELECT to_regclass('message_feedbacks') IS NOT NULL AS ok`)).rows[0]?.ok === true;
  const appId = opts.app_id ?? difyAppId;

  async function* pages() {
    let after = "00000000-0000-0000-0000-000000000000";
    for (;;) {
      const ids = (
        await client.query(
          `SELECT m.conversation_id::text AS id FROM messages m JOIN conversations c ON c.id = m.conversation_id AND NOT c.is_deleted
            WHERE m.app_id = $1::uuid AND ${AFTER} AND m.conversation_id > $6::uuid
            GROUP BY m.conversation_id ORDER BY m.conversation_id LIMIT ${PAGE_CONVERSATIONS}`,
          [...bounds, after],
        )
      ).rows.map((r) => String(r.id));
      if (!ids.length) return;
      after = ids[ids.length - 1];
      yield await readPage(client, ids, bounds, appId, hasFeedback);
    }
  }
  return { total: Number(count.rows[0]?.n ?? 0), upper, pages: pages() };
}

async function readPage(client: PgClient, conversationIds: string[], bounds: unknown[], appId: string, hasFeedback: boolean) {
  const convs = (
    await client.query(
      `SELECT c.id::text AS id, c.name, c.mode, c.status, c.introduction, c.inputs::text AS inputs,
              to_char(c.created_at, 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS created_at,
              to_char(c.updated_at, 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS updated_at,
              COALESCE(e.session_id, e.external_user_id, c.from_account_id::text) AS end_user
         FROM conversations c LEFT JOIN end_users e ON e.id = c.from_end_user_id
        WHERE c.id = ANY($1::uuid[])`,
      [conversationIds],
    )
  ).rows;
  const messages = (
    await client.query(
      `SELECT m.id::text AS id, m.conversation_id::text AS conversation_id, m.parent_message_id::text AS parent_message_id,
              m.query, m.answer, m.message_tokens, m.answer_tokens, m.total_price::float8 AS total_price, m.currency,
              m.provider_response_latency, m.status, m.error, m.message_metadata, m.inputs::text AS inputs,
              m.created_at::text AS created_key,
              to_char(m.created_at, 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS created_at
         FROM messages m
        WHERE m.app_id = $1::uuid AND ${AFTER} AND m.conversation_id = ANY($6::uuid[])
        ORDER BY m.created_at, m.id`,
      [...bounds, conversationIds],
    )
  ).rows;
  const messageIds = messages.map((m) => m.id);
  const files = messageIds.length
    ? (
        await client.query(
          `SELECT message_id::text AS message_id, type, transfer_method, url, belongs_to, upload_file_id::text AS upload_file_id
             FROM message_files WHERE message_id = ANY($1::uuid[]) ORDER BY created_at, id`,
          [messageIds],
        )
      ).rows
    : [];
  const feedback = hasFeedback && messageIds.length
    ? (
        await client.query(
          `SELECT DISTINCT ON (message_id, from_source) message_id::text AS message_id, rating, content, from_source
             FROM message_feedbacks WHERE message_id = ANY($1::uuid[]) ORDER BY message_id, from_source, created_at DESC`,
          [messageIds],
        )
      ).rows
    : [];

  const filesOf = group(files, "message_id");
  const feedbackOf = group(feedback, "message_id");
  const messagesOf = group(messages, "conversation_id");
  const parsed: ParsedImport = { format: "dify-db", source: "dify", conversations: [], memories: [], problems: [] };
  const firstKeys = new Map<string, MessageKey>();
  for (const c of convs) {
    const id = String(c.id);
    const record = `conversation ${id}`;
    const rows = messagesOf.get(id) ?? [];
    if (rows[0]) firstKeys.set(id, { created_at: String(rows[0].created_key), id: String(rows[0].id) });
    try {
      const turns = rows.map((m) => {
        const fb = feedbackOf.get(String(m.id)) ?? [];
        const user = fb.find((f) => f.from_source === "user") ?? fb[0];
        return difyMessageToTurn(
          {
            ...m,
            metadata: parseJson(m.message_metadata),
            inputs: parseJson(m.inputs) ?? undefined,
            message_files: (filesOf.get(String(m.id)) ?? []).map((f) => ({ ...f, message_id: undefined })),
            feedback: user ? { rating: user.rating, ...(user.content ? { content: user.content } : {}), from_source: user.from_source } : null,
          },
          `message ${String(m.id)}`,
        );
      });
      const config: Record<string, unknown> = { source: "dify", dify_mode: c.mode };
      if (c.introduction) config.introduction = c.introduction;
      const inputs = parseJson(c.inputs);
      if (inputs && typeof inputs === "object" && Object.keys(inputs).length) config.inputs = inputs;
      const conv: ImportConversation = {
        externalId: id,
        record,
        id,
        app_id: appId,
        end_user_id: c.end_user ? String(c.end_user).slice(0, 200) : null,
        name: String(c.name ?? "").slice(0, 500),
        mode: "chat",
        model_config: config,
        created_at: String(c.created_at),
        updated_at: String(c.updated_at),
        turns: orderTurns(turns),
        allowMissingParents: true,
      };
      parsed.conversations.push(conv);
    } catch (e) {
      parsed.problems.push(problemOf(record, e));
    }
  }
  return { parsed, firstKeys };
}

/** The newest message strictly before `key` (and after `from`): where a cursor can stop short of a failure. */
export async function keyBefore(client: PgClient, difyAppId: string, from: MessageKey | null, key: MessageKey): Promise<MessageKey | null> {
  const f = from ?? ZERO;
  const { rows } = await client.query(
    `SELECT m.created_at::text AS created_at, m.id::text AS id FROM messages m
      WHERE m.app_id = $1::uuid AND (m.created_at, m.id) > ($2::timestamp, $3::uuid) AND (m.created_at, m.id) < ($4::timestamp, $5::uuid)
      ORDER BY m.created_at DESC, m.id DESC LIMIT 1`,
    [difyAppId, f.created_at, f.id, key.created_at, key.id],
  );
  return (rows[0] as MessageKey | undefined) ?? null;
}

function group<T extends Record<string, unknown>>(rows: T[], key: string): Map<string, T[]> {
  const m = new Map<string, T[]>();
  for (const r of rows) {
    const k = String(r[key]);
    const list = m.get(k);
    if (list) list.push(r);
    else m.set(k, [r]);
  }
  return m;
}

function parseJson(v: unknown): Record<string, unknown> | null {
  if (v === null || v === undefined || v === "") return null;
  if (typeof v === "object") return v as Record<string, unknown>;
  try {
    const x = JSON.parse(String(v));
    return x && typeof x === "object" ? x : null;
  } catch {
    return null;
  }
}

export const compareKeys = (a: MessageKey, b: MessageKey) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id);
