import "server-only";
import { randomUUID } from "node:crypto";
import { ValidationError, conflict, notFound, unprocessable, type ErrorDetail } from "../errors/domain-errors";
import type { ProjectSql } from "../db/project-sql";
import { noteBulkWrite } from "../db/planner-stats";
import type { TokenCache } from "../tokens/count-tokens";
import { countTextsAllEncodings, type TokenCounts } from "../tokens/count-tokens-parallel";
import { UUID_NIL } from "../threads/uuid-nil";
import { activeLeafId } from "../threads/load-thread";
import type { Message, TurnInput } from "./schemas";
import { FILE_COLUMNS, MESSAGE_COLUMNS, serializeMessage, type FileRow, type MessageRow } from "./serialize-message";

export type InsertOptions = {
  allowMissingParents?: boolean;
  /** Field prefix for error details: "messages" for a batch, "" for one turn. */
  fieldPrefix?: string;
  /**
   * Token counts already made for [query0, answer0, query1, ...] (imports count many
   * conversations in one parallel call, ahead of their transactions). Counted here when absent.
   */
  counts?: TokenCounts;
  /**
   * Imports set the active leaf from the source (ChatGPT's current_node) themselves; every
   * other writer moves it to the batch's last turn (below).
   */
  keepActiveLeaf?: boolean;
};

/** What a minimal batch import answers per turn: enough to address each stored turn. */
export type StoredTurnRef = { id: string; created_at: string };

/** A turn ready to store: ids, parents and token counts decided. */
export type PreparedTurn = {
  id: string;
  conversationId: string;
  parent: string | null; // as stored (Dify semantics)
  treeParent: string | null;
  createdAt: Date;
  input: TurnInput;
  tokens: { q: TokenCache; a: TokenCache };
  answerTokens: number;
};

/** What planTurns needs to know of the conversation as stored (a new one: nothing). */
export type StoredState = {
  newest: { id: string; created_at: Date | string } | null;
  /**
   * The conversation's active leaf (model_config.active_leaf_message_id) when it names a stored
   * turn: the thread the person sees ends there, so a turn without a parent continues from it
   * rather than from the newest row (which may be on another branch).
   */
  activeLeaf?: string | null;
  /** Explicit parents (not in the batch) that are turns of this conversation. */
  stored: Set<string>;
};

const fieldOf = (prefix: string | undefined) => (i: number, name: string) => (prefix ? `${prefix}[${i}].${name}` : name);

/** The batch's ids (given or new); a repeated id is a 422 naming both places. */
export function turnIds(turns: TurnInput[], fieldPrefix?: string): string[] {
  const field = fieldOf(fieldPrefix);
  const ids = turns.map((t) => t.id ?? randomUUID());
  const dupes: ErrorDetail[] = [];
  const seen = new Map<string, number>();
  ids.forEach((id, i) => {
    if (seen.has(id)) dupes.push({ field: field(i, "id"), message: `duplicate of ${field(seen.get(id)!, "id")}`, id });
    else seen.set(id, i);
  });
  if (dupes.length) throw unprocessable("Duplicate message ids in the batch", dupes);
  return ids;
}

/** Explicit parents that are neither in the batch nor UUID_NIL: they must be looked up. */
export function outsideParents(turns: TurnInput[], ids: string[]): string[] {
  const batchIds = new Set(ids);
  return [...new Set(turns.map((t) => t.parent_message_id).filter((p): p is string => !!p && p !== UUID_NIL && !batchIds.has(p)))];
}

/**
 * Parents, tree parents, times and token counts of a batch (no I/O). Parents: omitted = the
 * previous turn (the batch's previous, else the active leaf, else the newest stored); null = a new root; UUID_NIL
 * kept as is; an id must be stored in this conversation or appear in the batch, unless
 * allowMissingParents keeps it dangling (a 422 naming each one otherwise).
 */
export function planTurns(
  conversationId: string,
  turns: TurnInput[],
  ids: string[],
  counts: TokenCounts,
  state: StoredState,
  opts: Pick<InsertOptions, "allowMissingParents" | "fieldPrefix">,
): PreparedTurn[] {
  const field = fieldOf(opts.fieldPrefix);
  const { newest, stored, activeLeaf } = state;
  const batchIds = new Set(ids);
  const missing: ErrorDetail[] = [];
  const base = Math.max(Date.now(), newest ? new Date(newest.created_at).getTime() + 1 : 0);
  const times = turns.map((t, i) => (t.created_at ? new Date(t.created_at) : new Date(base + i)));
  const olderRow = previousRows(ids, times, newest);
  const prepared = turns.map((t, i): PreparedTurn => {
    // Omitted parent: the turn the conversation's shown thread ends at. Dify's web client sends the
    // same explicitly (the last answer of the thread on screen); UUID_NIL below stays Dify's
    // "previous row", by time.
    const prev = i > 0 ? ids[i - 1] : (activeLeaf ?? newest?.id ?? null);
    let parent: string | null;
    let treeParent: string | null;
    if (t.parent_message_id === undefined) {
      parent = prev;
      treeParent = prev;
    } else if (t.parent_message_id === null) {
      parent = null;
      treeParent = null;
    } else if (t.parent_message_id === UUID_NIL) {
      parent = UUID_NIL;
      treeParent = olderRow(i); // "the next older row, whatever its id": older in time, not in the batch's order
    } else {
      parent = t.parent_message_id;
      const known = batchIds.has(parent) || stored.has(parent);
      if (!known && !opts.allowMissingParents) {
        missing.push({ field: field(i, "parent_message_id"), message: "not a message of this conversation", parent_message_id: parent });
      }
      treeParent = known ? parent : null;
    }
    const q = { o200k_base: counts.o200k_base[2 * i], cl100k_base: counts.cl100k_base[2 * i] };
    const a = { o200k_base: counts.o200k_base[2 * i + 1], cl100k_base: counts.cl100k_base[2 * i + 1] };
    return {
      id: ids[i],
      conversationId,
      parent,
      treeParent,
      createdAt: times[i],
      input: t,
      tokens: { q, a },
      answerTokens: t.answer_tokens ?? a.o200k_base,
    };
  });
  if (missing.length) {
    throw new ValidationError(`${missing.length} parent_message_id value(s) are not in this conversation`, missing.slice(0, 100), "parent_not_found");
  }
  return prepared;
}

/**
 * For a UUID_NIL parent: the row Dify's walk reads just before turn i, by (created_at, write
 * order) as the walk sorts rows; null when nothing is older (the conversation's first row, as
 * an import writes a tree's oldest root). A batch in time order gets its previous turn, as
 * before. Of the stored rows only the newest is known here: it is the answer when it is not
 * newer than the turn and newer than the batch's older turns (on a tie of time the batch's
 * turn is written later, so it is the nearer one), and it stays the answer, as before, when no
 * turn of the batch is older (an older stored row may be the true one; it is not read here).
 */
function previousRows(ids: string[], times: Date[], newest: StoredState["newest"]): (i: number) => string | null {
  let pos: Int32Array | null = null;
  let order: number[] = [];
  const stored = newest ? new Date(newest.created_at).getTime() : null;
  return (i) => {
    if (!pos) {
      // Sorted once, on the first UUID_NIL turn: batches without one pay nothing.
      order = times.map((_, k) => k).sort((a, b) => times[a].getTime() - times[b].getTime() || a - b);
      pos = new Int32Array(order.length);
      order.forEach((k, p) => (pos![k] = p));
    }
    const before = pos[i] > 0 ? order[pos[i] - 1] : null;
    if (before === null) return newest?.id ?? null;
    if (newest && stored! <= times[i].getTime() && stored! > times[before].getTime()) return newest.id;
    return ids[before];
  };
}

/** Leaves and tokens a batch adds: a turn adds a leaf unless its tree parent was a leaf until now. */
export function turnTotals(prepared: PreparedTurn[], hasChildren: Set<string> = new Set()): { leafDelta: number; tokenDelta: number } {
  let leafDelta = 0;
  let tokenDelta = 0;
  for (const p of prepared) {
    if (!p.treeParent || hasChildren.has(p.treeParent)) leafDelta++;
    if (p.treeParent) hasChildren.add(p.treeParent);
    tokenDelta += p.tokens.q.o200k_base + p.tokens.a.o200k_base;
  }
  return { leafDelta, tokenDelta };
}

/**
 * Writes prepared turns (of one or many conversations) and their files: one statement per
 * table whatever their number, columns travelling as arrays; rows go in array order (seq).
 */
// One INSERT carries at most this many characters of text (about as many bytes). On the embedded database a statement
// runs on the server's thread start to end: a 60 MB conversation written in one held it for
// seconds (no request answered); in pages the thread is given back between statements.
const WRITE_PAGE_CHARS = 2 * 1024 * 1024;

/** The turns' rows, in statements of at most WRITE_PAGE_CHARS of text each (oldest first, so parents precede children). */
export async function writeTurnRows(tx: ProjectSql, prepared: PreparedTurn[], returning: boolean): Promise<{ messages: MessageRow[]; files: FileRow[] }> {
  const messages: MessageRow[] = [];
  const files: FileRow[] = [];
  for (let i = 0; i < prepared.length; ) {
    const start = i;
    let chars = 0;
    while (i < prepared.length && (i === start || chars + textChars(prepared[i]) <= WRITE_PAGE_CHARS)) chars += textChars(prepared[i++]);
    if (start) await new Promise((r) => setImmediate(r));
    const page = await writeTurnPage(tx, start || i < prepared.length ? prepared.slice(start, i) : prepared, returning);
    messages.push(...page.messages);
    files.push(...page.files);
  }
  return { messages, files };
}

const textChars = (p: PreparedTurn) => p.input.query.length + p.input.answer.length;

async function writeTurnPage(tx: ProjectSql, prepared: PreparedTurn[], returning: boolean): Promise<{ messages: MessageRow[]; files: FileRow[] }> {
  const col = <T>(f: (p: PreparedTurn) => T) => prepared.map(f);
  const messages = await tx.query<MessageRow>(
    `INSERT INTO messages (id, conversation_id, parent_message_id, tree_parent_id, query, answer, answer_tokens,
       query_tokens_o200k, answer_tokens_o200k, query_tokens_cl100k, answer_tokens_cl100k, file_count, metadata, created_at, project_id)
     SELECT u.id, u.conversation_id, u.parent, u.tree_parent, u.query, u.answer, u.answer_tokens, u.q_o, u.a_o, u.q_c, u.a_c, u.files,
            u.metadata::jsonb, u.created_at, $15
       FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::uuid[], $5::text[], $6::text[], $7::int[], $8::int[], $9::int[],
                   $10::int[], $11::int[], $12::int[], $13::text[], $14::timestamptz[])
         AS u(id, conversation_id, parent, tree_parent, query, answer, answer_tokens, q_o, a_o, q_c, a_c, files, metadata, created_at)
     ${returning ? `RETURNING ${MESSAGE_COLUMNS}` : ""}`,
    [
      col((p) => p.id),
      col((p) => p.conversationId),
      col((p) => p.parent),
      col((p) => p.treeParent),
      col((p) => p.input.query),
      col((p) => p.input.answer),
      col((p) => p.answerTokens),
      col((p) => p.tokens.q.o200k_base),
      col((p) => p.tokens.a.o200k_base),
      col((p) => p.tokens.q.cl100k_base),
      col((p) => p.tokens.a.cl100k_base),
      col((p) => p.input.files.length),
      col((p) => (p.input.metadata ? JSON.stringify(p.input.metadata) : null)),
      col((p) => p.createdAt.toISOString()),
      tx.projectId,
    ],
  );
  const files = prepared.flatMap((p) => p.input.files.map((f, position) => ({ messageId: p.id, position, f })));
  if (!files.length) return { messages, files: [] };
  const fileRows = await tx.query<FileRow>(
    `INSERT INTO message_files (id, message_id, type, transfer_method, url, upload_file_id, belongs_to, position, project_id)
     SELECT gen_random_uuid(), u.*, $8 FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::int[])
       AS u(message_id, type, transfer_method, url, upload_file_id, belongs_to, position)
     ${returning ? `RETURNING ${FILE_COLUMNS}` : ""}`,
    [
      files.map((x) => x.messageId),
      files.map((x) => x.f.type),
      files.map((x) => x.f.transfer_method),
      files.map((x) => x.f.url ?? null),
      files.map((x) => x.f.upload_file_id ?? null),
      files.map((x) => x.f.belongs_to),
      files.map((x) => x.position),
      tx.projectId,
    ],
  );
  return { messages, files: fileRows };
}

/**
 * Stores turns (oldest first) in one transaction: all or nothing.
 * Parents: omitted = the previous turn (the batch's previous, else the active leaf, else the newest stored);
 * null = a new root; UUID_NIL kept as is; an id must be stored in this conversation or
 * appear in the batch, unless allowMissingParents keeps it dangling.
 * Token counts for every encoding are computed here, once, and cached on the row.
 */
export async function insertTurns(sql: ProjectSql, conversationId: string, turns: TurnInput[], opts?: InsertOptions & { minimal?: false }): Promise<Message[]>;
/** minimal: nothing is read back (no RETURNING); each turn answers with its id and created_at. */
export async function insertTurns(sql: ProjectSql, conversationId: string, turns: TurnInput[], opts: InsertOptions & { minimal: true }): Promise<StoredTurnRef[]>;
export async function insertTurns(
  sql: ProjectSql,
  conversationId: string,
  turns: TurnInput[],
  opts: InsertOptions & { minimal?: boolean } = {},
): Promise<Message[] | StoredTurnRef[]> {
  // CPU work before the transaction opens, so it holds locks only for I/O.
  const ids = turnIds(turns, opts.fieldPrefix);
  const field = fieldOf(opts.fieldPrefix);
  const counts = opts.counts ?? (await countTextsAllEncodings(turns.flatMap((t) => [t.query, t.answer])));

  const result = await sql.transaction(async (tx) => {
    // Locks the conversation row: concurrent appends to one conversation queue here. Its active
    // leaf is read under that lock, and only when it names a stored turn of this conversation (a
    // pointer to nothing, or not a UUID, falls back to the newest row as before).
    const conv = await tx.query<{ id: string; active_leaf: string | null }>(
      `SELECT c.id,
              (SELECT m.id FROM messages m
                WHERE m.project_id = c.project_id AND m.conversation_id = c.id
                  AND m.id = ${activeLeafId("c")}) AS active_leaf
         FROM conversations c WHERE c.id = $1 AND c.project_id = $2 AND c.deleted_at IS NULL FOR UPDATE OF c`,
      [conversationId, tx.projectId],
    );
    if (!conv.length) throw notFound("Conversation", conversationId);

    // Message ids are unique per project (the primary key is (project_id, id)): an id that
    // another project holds is free here, and answers exactly as a fresh one.
    const existing = await tx.query<{ id: string }>(`SELECT id FROM messages WHERE id = ANY($1::uuid[]) AND project_id = $2`, [ids, tx.projectId]);
    if (existing.length) {
      const taken = new Set(existing.map((r) => r.id));
      throw conflict(
        "Some message ids already exist",
        ids.flatMap((id, i) => (taken.has(id) ? [{ field: field(i, "id"), message: "already exists", id }] : [])),
      );
    }

    const [newest] = await tx.query<{ id: string; created_at: Date | string }>(
      `SELECT id, created_at FROM messages WHERE conversation_id = $1 AND project_id = $2 ORDER BY created_at DESC, seq DESC LIMIT 1`,
      [conversationId, tx.projectId],
    );
    const explicit = outsideParents(turns, ids);
    const stored = new Set(
      explicit.length
        ? (
            await tx.query<{ id: string }>(
              `SELECT id FROM messages WHERE conversation_id = $1 AND project_id = $3 AND id = ANY($2::uuid[])`,
              [conversationId, explicit, tx.projectId],
            )
          ).map((r) => r.id)
        : [],
    );
    const prepared = planTurns(conversationId, turns, ids, counts, { newest: newest ?? null, stored, activeLeaf: conv[0].active_leaf }, opts);

    const parents = [...new Set(prepared.map((p) => p.treeParent).filter((p): p is string => !!p))];
    const hasChildren = new Set(
      parents.length
        ? (
            await tx.query<{ tree_parent_id: string }>(
              `SELECT DISTINCT tree_parent_id FROM messages WHERE conversation_id = $1 AND project_id = $3 AND tree_parent_id = ANY($2::uuid[])`,
              [conversationId, parents, tx.projectId],
            )
          ).map((r) => r.tree_parent_id)
        : [],
    );
    const { leafDelta, tokenDelta } = turnTotals(prepared, hasChildren);
    const { messages: inserted, files: fileRows } = await writeTurnRows(tx, prepared, !opts.minimal);

    // A conversation with a recorded active leaf (an import's) shows the thread ending there by
    // default: a turn written to it continues the conversation and becomes what the client shows,
    // as a new message does in Dify, so the pointer moves to the batch's last turn.
    const newLeaf = opts.keepActiveLeaf || !prepared.length ? null : prepared[prepared.length - 1].id;
    await tx.query(
      `UPDATE conversations SET turn_count = turn_count + $2, leaf_count = leaf_count + $3,
              token_count = token_count + $4, updated_at = now(),
              model_config = CASE WHEN $6::text IS NOT NULL AND model_config->>'active_leaf_message_id' IS NOT NULL
                                  THEN jsonb_set(model_config, '{active_leaf_message_id}', to_jsonb($6::text)) ELSE model_config END
        WHERE id = $1 AND project_id = $5`,
      [conversationId, prepared.length, leafDelta, tokenDelta, tx.projectId, newLeaf],
    );

    if (opts.minimal) return prepared.map((p): StoredTurnRef => ({ id: p.id, created_at: p.createdAt.toISOString() }));
    const byMessage = new Map<string, FileRow[]>();
    for (const f of fileRows) byMessage.set(f.message_id, [...(byMessage.get(f.message_id) ?? []), f]);
    const order = new Map(ids.map((id, i) => [id, i]));
    inserted.sort((x, y) => order.get(x.id)! - order.get(y.id)!);
    return inserted.map((m) => serializeMessage(m, byMessage.get(m.id) ?? []));
  });
  await noteBulkWrite(sql, result.length, ["messages", "conversations"]);
  return result;
}
