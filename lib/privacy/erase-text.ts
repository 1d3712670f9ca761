import "server-only";
import type { ProjectSql } from "../db/project-sql";
import { writeProviders } from "../embeddings/active-model";
import { contentKey } from "../memories/normalize-content";
import { embedForWrite, writeEmbeddings } from "../memories/write-embeddings";
import { needles, projectTextColumns, scanProject, type TextColumn } from "./scan-columns";
import { USER_TABLES } from "./user-tables";

// Text erasure: exact strings (a phone number, a name) replaced by ERASED wherever they occur
// in the project's text and JSON columns (turns, memories, history snapshots, offloaded
// contents, summaries, node memory, retrieval queries, import problems, ...), found through
// information_schema like the probes' scan, so a table added later is covered.
// Left alone, and listed in the dry run as such:
// - identifier columns (ids, keys, models, kinds): rewriting them would re-key rows: erase
//   the user instead when a string is an identifier;
// - the audit log and access tables (keys, members, invitations, erasures under way).
// Memories whose content changed get a new content key and new vectors, written in the same
// transaction as the text. Conversations whose turns changed get a new updated_at: the
// history caches of every instance key on it (lib/window/history-cache.ts).

export const ERASED = "[erased]";

const NOT_SCANNED_TABLES = new Set(["audit_events", "api_keys", "project_members", "project_invitations", "privacy_erasures"]);
const IDENTIFIER_COLUMNS = new Set([
  "id", "ref", "key", "input_hash", "model", "source", "kind", "status", "event_type", "actor", "actor_label", "embedding_model",
  "memory_type", "mode", "transfer_method", "belongs_to", "type", "relation_type", "created_by", "format", "source_key", "content_key",
]);
const isIdentifier = (c: TextColumn) => IDENTIFIER_COLUMNS.has(c.column) || c.column.endsWith("_id");

export type TextMatch = { table: string; column: string; string_index: number; rows: number; replaced: boolean };
export type TextScope = { userId: string } | null;

/** Columns text erasure reads: every project text/JSON column but the tables it leaves alone. */
async function columns(sql: ProjectSql): Promise<TextColumn[]> {
  return (await projectTextColumns(sql)).filter((c) => !NOT_SCANNED_TABLES.has(c.table));
}

/** A user's rows of a table (USER_TABLES), or null when the table holds none of a user's rows. */
function userPredicate(table: string): string | null {
  return USER_TABLES.find((u) => u.table === table)?.where ?? null;
}

/** The dry run: where each string occurs (rows per table, column and string). */
export async function findText(sql: ProjectSql, strings: string[], scope: TextScope): Promise<TextMatch[]> {
  const cols = await columns(sql);
  const found = scope ? await scanUser(sql, strings, cols, scope.userId) : (await scanProject(sql, strings, cols)).found;
  return found.map((f) => ({ ...f, replaced: !isIdentifier({ table: f.table, column: f.column, json: false }) }));
}

async function scanUser(sql: ProjectSql, strings: string[], cols: TextColumn[], userId: string) {
  const found: { table: string; column: string; string_index: number; rows: number }[] = [];
  for (const c of cols) {
    const where = userPredicate(c.table);
    if (!where) continue;
    const list = strings.flatMap((s, i) => needles(s, c.json).map((n) => ({ n, i })));
    const rows = await sql.query<{ i: number; n: number }>(
      `SELECT s.i, count(DISTINCT t.ctid)::int AS n FROM ${c.table} t, unnest($3::text[], $4::int[]) AS s(needle, i)
        WHERE ${where} AND strpos(t."${c.column}"::text, s.needle) > 0 GROUP BY s.i`,
      [sql.projectId, userId, list.map((x) => x.n), list.map((x) => x.i)],
    );
    for (const r of rows) found.push({ table: c.table, column: c.column, string_index: r.i, rows: r.n });
  }
  return found;
}

/** Replaces every string (longest first, so a string inside another goes with it). */
export function redact(text: string, strings: string[]): string {
  let out = text;
  for (const s of [...strings].sort((a, b) => b.length - a.length)) out = out.split(s).join(ERASED);
  return out;
}

/** The same in a JSON value: string values and keys. */
export function redactJson(v: unknown, strings: string[]): unknown {
  if (typeof v === "string") return redact(v, strings);
  if (Array.isArray(v)) return v.map((x) => redactJson(x, strings));
  if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [redact(k, strings), redactJson(x, strings)]));
  return v;
}

export type TextErasure = { matches: TextMatch[]; rows: Record<string, number>; memories_reembedded: number; tables: string[] };

export async function eraseText(sql: ProjectSql, strings: string[], scope: TextScope): Promise<TextErasure> {
  const matches = await findText(sql, strings, scope);
  const cols = await columns(sql);
  // $2 is the user (null for the whole project): every query takes the same parameters.
  const userWhere = (table: string) => (scope ? userPredicate(table) : "t.project_id = $1 AND $2::text IS NULL");
  const targets = cols.filter((c) => !isIdentifier(c) && userWhere(c.table) && matches.some((m) => m.table === c.table && m.column === c.column));

  // New vectors first, outside the transaction (the endpoint may be remote).
  const memRows = targets.some((c) => c.table === "memories" && c.column === "content")
    ? await sql.query<{ id: string; user_id: string; content: string }>(
        `SELECT t.id, t.user_id, t.content FROM memories t
          WHERE ${userWhere("memories")} AND EXISTS (SELECT 1 FROM unnest($3::text[]) s WHERE strpos(t.content, s) > 0)`,
        scope ? [sql.projectId, scope.userId, strings] : [sql.projectId, null, strings],
      )
    : [];
  const providers = memRows.length ? await writeProviders(sql) : [];
  const vectors = new Map<string, Awaited<ReturnType<typeof embedForWrite>>>();
  for (const m of memRows) vectors.set(m.id, await embedForWrite(providers, redact(m.content, strings)));

  const rows: Record<string, number> = {};
  await sql.transaction(async (tx) => {
    // The as-of embedding cache is keyed by a hash of the text, so which vectors came from an
    // erased string cannot be told: the project's cache goes (a replay embeds again).
    await tx.query(`DELETE FROM embedding_cache WHERE project_id = $1`, [tx.projectId]);
    const params = scope ? [tx.projectId, scope.userId] : [tx.projectId, null];
    for (const c of targets) {
      const where = userWhere(c.table)!;
      const any = `EXISTS (SELECT 1 FROM unnest($3::text[]) s WHERE strpos(t."${c.column}"::text, s) > 0)`;
      const list = strings.flatMap((s) => needles(s, c.json));
      const conv = c.table === "messages" ? ", t.conversation_id" : "";
      const hits = await tx.query<{ ctid: string; v: unknown; conversation_id?: string }>(
        `SELECT t.ctid::text AS ctid, t."${c.column}" AS v${conv} FROM ${c.table} t WHERE ${where} AND ${any}`,
        [...params, list],
      );
      for (const h of hits) {
        // strpos of a NULL is NULL, so no hit is NULL; kept explicit: a NULL is never rewritten.
        if (h.v === null || h.v === undefined) continue;
        const next = c.json ? JSON.stringify(redactJson(h.v, strings)) : redact(String(h.v), strings);
        await tx.query(`UPDATE ${c.table} SET "${c.column}" = $2${c.json ? "::jsonb" : ""} WHERE ctid = $1::tid`, [h.ctid, next]);
      }
      if (hits.length) rows[`${c.table}.${c.column}`] = hits.length;
      if (hits.length && c.table === "messages") {
        // The turns' conversations: their updated_at is part of every instance's history cache key.
        await tx.query(`UPDATE conversations SET updated_at = now() WHERE project_id = $1 AND id = ANY($2::uuid[])`, [
          tx.projectId,
          [...new Set(hits.map((h) => h.conversation_id!))],
        ]);
      }
    }
    for (const m of memRows) {
      const content = redact(m.content, strings);
      await tx.query(`UPDATE memories SET content_key = $3, updated_at = now() WHERE id = $1 AND project_id = $2`, [m.id, tx.projectId, contentKey(content)]);
      await writeEmbeddings(tx, m.id, m.user_id, vectors.get(m.id)!);
    }
  });
  return { matches, rows, memories_reembedded: memRows.length, tables: [...new Set(targets.map((c) => c.table))] };
}
