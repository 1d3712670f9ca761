import "server-only";
import type { ProjectSql } from "../db/project-sql";
import { activeProvider } from "../embeddings/active-model";
import { searchMemories } from "../memories/search-memories";
import { ZSearchInput } from "../memories/schemas";
import { scanProject, tokenPattern, type Occurrence } from "./scan-columns";

// The checks an erasure runs once it is done, whose results the receipt carries. Each must
// come back empty:
// - ids: each erased memory, conversation and turn id is absent from its table in the project,
//   the condition on which GET /memories/{id}, /conversations/{id} and the turn routes answer
//   404 (checked in SQL, a page of ids a query, not one HTTP request per id);
// - search: the user's search with each erased memory's text (the longest ones, up to a limit)
//   returns none of the erased memories. Run in a transaction rolled back afterwards: the
//   retrieval log would otherwise keep the text as a new query of the user;
// - scan: every text and JSON column of every project table (information_schema) holds none
//   of the probe strings: strings of the user's that no other user's memory or turn held
//   before the erasure (pickProbeStrings), so a hit can only be a left-over. Each is looked
//   for as a whole token (scan-columns.ts tokenPattern): the id `conv` is not found in another
//   user's `conv-trunc-7`, a receipt that could never pass (issue 39). The receipt says, per
//   probe string, what it is and where it was found.

export type ProbeWhere = { table: string; column: string; rows: number };
/** One probe string, never the string itself: what it is, how it was matched, where it was found. */
export type ProbeString = { probe: "user id" | "memory text" | "turn text" | "erased string"; matched_as: "token" | "substring"; found: number; where: ProbeWhere[] };
export type ProbeInput = { s: string; probe: ProbeString["probe"] };

export type Probes = {
  ids: { checked: number; found: number };
  search: { checked: number; found: number };
  scan: { columns: number; strings: number; found: number; where: ProbeWhere[]; by_string: ProbeString[] };
  passed: boolean;
};

class Rollback extends Error {
  constructor(readonly value: number) {
    super("rollback");
  }
}

export async function probeIds(sql: ProjectSql, ids: { memories: string[]; conversations: string[]; messages: string[] }) {
  let found = 0;
  const page = 10_000;
  for (const [table, list] of [["memories", ids.memories], ["conversations", ids.conversations], ["messages", ids.messages]] as const) {
    for (let i = 0; i < list.length; i += page) {
      const [r] = await sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE project_id = $1 AND id = ANY($2::uuid[])`, [
        sql.projectId,
        list.slice(i, i + page),
      ]);
      found += r.n;
    }
  }
  return { checked: ids.memories.length + ids.conversations.length + ids.messages.length, found };
}

export async function probeSearch(sql: ProjectSql, userId: string, texts: string[], erasedIds: string[]) {
  const erased = new Set(erasedIds);
  let found = 0;
  // Outside the rolled-back transactions: the model's setting and index, kept by this process.
  if (texts.length) await activeProvider(sql);
  for (const text of texts) {
    for (const status of ["active", "archived"] as const) {
      const input = ZSearchInput.parse({ query: text.slice(0, 5000), k: 100, status });
      try {
        await sql.transaction(async (tx) => {
          const r = await searchMemories(tx, userId, input, { recordAccess: false });
          throw new Rollback(r.data.filter((h) => erased.has(h.memory.id)).length);
        });
      } catch (e) {
        if (!(e instanceof Rollback)) throw e;
        found += e.value;
      }
    }
  }
  return { checked: texts.length, found };
}

/**
 * Before an erasure: up to `limit` strings of the user (the id, the longest memory contents and
 * turn texts) that no other user's memory or turn contains.
 */
export async function pickProbeStrings(sql: ProjectSql, userId: string, limit = 20): Promise<ProbeInput[]> {
  // UNION ALL and a top-N by length, duplicates dropped after: a UNION sorted every text of
  // the user (500 000 at bench:erase's size) to drop duplicates first.
  const candidates = await sql.query<{ s: string; memory: boolean }>(
    `SELECT s, memory FROM (
       SELECT DISTINCT ON (s) s, memory FROM (
         SELECT s, memory FROM (
           SELECT content AS s, true AS memory FROM memories WHERE project_id = $1 AND user_id = $2
           UNION ALL SELECT m.query, false FROM messages m JOIN conversations c ON c.project_id = m.project_id AND c.id = m.conversation_id WHERE c.project_id = $1 AND c.end_user_id = $2
           UNION ALL SELECT m.answer, false FROM messages m JOIN conversations c ON c.project_id = m.project_id AND c.id = m.conversation_id WHERE c.project_id = $1 AND c.end_user_id = $2
         ) x WHERE length(s) >= 12 ORDER BY length(s) DESC, s LIMIT $3
       ) top ORDER BY s, memory DESC
     ) y ORDER BY length(s) DESC, s`,
    [sql.projectId, userId, limit * 3],
  );
  const kinds = new Map<string, ProbeInput["probe"]>(candidates.map((c) => [c.s, c.memory ? "memory text" : "turn text"]));
  kinds.set(userId, "user id");
  const list = [userId, ...candidates.map((c) => c.s)];
  // As the scan reads them (whole tokens): `conv` stays a probe beside another user's `conv-2`.
  const has = (col: string) => `(strpos(${col}, s) > 0 AND ${col} ~ p)`;
  const unique = await sql.query<{ s: string }>(
    `SELECT s FROM unnest($3::text[], $4::text[]) AS u(s, p)
      WHERE NOT EXISTS (SELECT 1 FROM memories x WHERE x.project_id = $1 AND x.user_id <> $2 AND (${has("x.content")} OR ${has("x.user_id")}))
        AND NOT EXISTS (SELECT 1 FROM conversations c WHERE c.project_id = $1 AND c.end_user_id IS DISTINCT FROM $2 AND ${has("coalesce(c.end_user_id, '')")})
        AND NOT EXISTS (SELECT 1 FROM messages m JOIN conversations c ON c.project_id = m.project_id AND c.id = m.conversation_id
                         WHERE c.project_id = $1 AND c.end_user_id IS DISTINCT FROM $2 AND (${has("m.query")} OR ${has("m.answer")}))`,
    [sql.projectId, userId, list, list.map(tokenPattern)],
  );
  return unique.map((u) => ({ s: u.s, probe: kinds.get(u.s)! })).slice(0, limit);
}

export async function probeScan(sql: ProjectSql, strings: ProbeInput[]): Promise<Probes["scan"]> {
  const r = await scanProject(sql, strings.map((x) => x.s), undefined, { tokens: true });
  return scanAnswer(r, strings.map((x) => x.probe), "token");
}

/** The receipt's scan: rows found in total and per column, and per probe string. */
export function scanAnswer(r: { columns: number; found: Occurrence[] }, probes: ProbeString["probe"][], matchedAs: ProbeString["matched_as"]): Probes["scan"] {
  const byColumn = new Map<string, ProbeWhere>();
  for (const f of r.found) {
    const key = `${f.table}.${f.column}`;
    const w = byColumn.get(key) ?? { table: f.table, column: f.column, rows: 0 };
    w.rows += f.rows;
    byColumn.set(key, w);
  }
  const where = [...byColumn.values()];
  const by_string = probes.map((probe, i) => {
    const w = r.found.filter((f) => f.string_index === i).map((f) => ({ table: f.table, column: f.column, rows: f.rows }));
    return { probe, matched_as: matchedAs, found: w.reduce((n, x) => n + x.rows, 0), where: w };
  });
  return { columns: r.columns, strings: probes.length, found: where.reduce((n, w) => n + w.rows, 0), where, by_string };
}

export function passed(p: Omit<Probes, "passed">): boolean {
  return p.ids.found === 0 && p.search.found === 0 && p.scan.found === 0;
}
