import "server-only";
import type { ProjectSql } from "../db/project-sql";

// Every row that holds one end user's data, table by table: the one definition export,
// the erasure's dry run, its batches and its final check all read. In each predicate the
// table is `t`, $1 is the project and $2 the end user (conversations.end_user_id,
// memories.user_id: the same person in the two halves of the store).
//
// `where` selects all of the user's rows of a table (counts, export, the final check).
// `parts` split it for deletion so each batch can use an index (an OR of two keys reads the
// whole table once per batch): each part is deleted in batches in order, so a row matching
// two parts goes with the first.

const CONV = `SELECT c.id FROM conversations c WHERE c.project_id = $1 AND c.end_user_id = $2`;
const MSG = `SELECT m.id FROM messages m JOIN conversations c ON c.project_id = m.project_id AND c.id = m.conversation_id
              WHERE c.project_id = $1 AND c.end_user_id = $2`;
const MEM = `SELECT x.id FROM memories x WHERE x.project_id = $1 AND x.user_id = $2`;
const RET = `SELECT r.id FROM memory_retrievals r WHERE r.project_id = $1 AND (r.user_id = $2 OR r.conversation_id IN (${CONV}))`;
// A turn's text, which an offload made before offloads named their user may hold verbatim.
const TEXTS = `SELECT m.query FROM messages m JOIN conversations c ON c.project_id = m.project_id AND c.id = m.conversation_id
                WHERE c.project_id = $1 AND c.end_user_id = $2
               UNION ALL
               SELECT m.answer FROM messages m JOIN conversations c ON c.project_id = m.project_id AND c.id = m.conversation_id
                WHERE c.project_id = $1 AND c.end_user_id = $2`;

// Hashes of every text of the user the as-of embedding cache may hold a vector of (past
// memory contents, search and replay queries): the cache is keyed by sha256 of the text.
const USER_TEXT_HASHES = `SELECT encode(sha256(convert_to(x.txt, 'UTF8')), 'hex') FROM (
    SELECT e.before->>'content' AS txt FROM memory_events e WHERE e.project_id = $1 AND (e.user_id = $2 OR e.memory_id IN (${MEM}))
    UNION SELECT e.after->>'content' FROM memory_events e WHERE e.project_id = $1 AND (e.user_id = $2 OR e.memory_id IN (${MEM}))
    UNION SELECT x.content FROM memories x WHERE x.project_id = $1 AND x.user_id = $2
    UNION SELECT r.query FROM memory_retrievals r WHERE r.project_id = $1 AND r.user_id = $2
    UNION ${TEXTS}) x WHERE x.txt IS NOT NULL`;

export type UserTable = {
  table: string;
  where: string;
  parts: string[];
  /** Part of the export document (derived counters are not: triggers rebuild them). */
  exported: boolean;
  /**
   * A cheap condition without which the table holds no row of the user: counts are wrapped in
   * CASE WHEN guard, so an expensive predicate is not evaluated at all when it is false.
   */
  guard?: string;
};

// `where` is parenthesised as a whole (and each part inside it): callers append `AND ...` to
// it, which on a bare `A OR B` would bind to B alone and select every row of A (issue 39: a
// text erasure scoped to a user rewrote every row of the user, NULLs included).
const t = (table: string, parts: string[], exported = true, guard?: string): UserTable => ({
  table,
  where: `(${parts.map((p) => `(${p})`).join(" OR ")})`,
  parts,
  exported,
  guard,
});

// The project's as-of embedding cache holds anything: false with the local lexical embedder,
// which caches nothing.
const CACHE_USED = `EXISTS (SELECT 1 FROM embedding_cache c WHERE c.project_id = $1)`;

/**
 * In deletion order: rows that point at others go before them (foreign keys, and predicates
 * that find a row through its conversation or memory need that row still there).
 */
export const USER_TABLES: readonly UserTable[] = [
  // First: its predicate reads the texts of the rows below, and the user's notes of texts their
  // as-of searches looked up (a query is in no other row of theirs).
  // The hashes are of every text of the user (500 000 at bench:erase's size): the uncorrelated
  // EXISTS is a one-time filter, so the erasure's batches skip them when the project's cache is
  // empty, and counts skip the whole predicate (the guard: an OR of the two parts hashed them
  // all, about 7 s a count at that size).
  t(
    "embedding_cache",
    [
      `t.project_id = $1 AND ${CACHE_USED} AND t.content_hash IN (${USER_TEXT_HASHES})`,
      `t.project_id = $1 AND t.content_hash IN (SELECT u.content_hash FROM embedding_cache_users u WHERE u.project_id = $1 AND u.user_id = $2)`,
    ],
    false,
    CACHE_USED,
  ),
  t("embedding_cache_users", [`t.project_id = $1 AND t.user_id = $2`], false),
  // Eval cases asked for this user (lib/evals), and their results in runs (which keep the
  // retrieved memories' texts); a run's aggregate metrics hold nothing of the person.
  // Exported (issue 39): what the erasure takes, the export gives; an import puts them back
  // under their set and run, which must exist in the importing project.
  t("eval_run_cases", [`t.project_id = $1 AND t.case_id IN (SELECT ec.id FROM eval_cases ec WHERE ec.project_id = $1 AND ec.user_id = $2)`]),
  t("eval_cases", [`t.project_id = $1 AND t.user_id = $2`]),
  // Memory incidents (lib/incidents): their summaries and evidence quote the user's turns and
  // memories; a false positive's suppression names the user. Before the turns (foreign key).
  t("incidents", [`t.project_id = $1 AND t.user_id = $2`, `t.project_id = $1 AND t.conversation_id IN (${CONV})`]),
  t("incident_suppressions", [`t.project_id = $1 AND t.user_id = $2`]),
  // Before the turns go (the erasure deletes them by conversation, lib/privacy/erase-user.ts):
  // its last part reads their texts. Offloads without user or conversation are rows written
  // before offloads named them; the uncorrelated EXISTS skips reading every turn when there
  // are none.
  t("offloaded_contents", [
    `t.project_id = $1 AND t.user_id = $2`,
    `t.project_id = $1 AND t.conversation_id IN (${CONV})`,
    `t.project_id = $1 AND t.user_id IS NULL AND t.conversation_id IS NULL
       AND EXISTS (SELECT 1 FROM offloaded_contents o WHERE o.project_id = $1 AND o.user_id IS NULL AND o.conversation_id IS NULL)
       AND t.content IN (${TEXTS})`,
  ]),
  t("memory_retrieval_hits", [`t.project_id = $1 AND t.retrieval_id IN (${RET})`, `t.project_id = $1 AND t.memory_id IN (${MEM})`]),
  t("memory_retrievals", [`t.project_id = $1 AND t.user_id = $2`, `t.project_id = $1 AND t.conversation_id IN (${CONV})`]),
  t("memory_review_items", [
    `t.project_id = $1 AND t.user_id = $2`,
    `t.project_id = $1 AND t.memory_id IN (${MEM})`,
    `t.project_id = $1 AND t.other_memory_id IN (${MEM})`,
    `t.project_id = $1 AND t.source_session_id IN (${CONV})`,
  ]),
  t("memory_events", [`t.project_id = $1 AND t.user_id = $2`, `t.project_id = $1 AND t.memory_id IN (${MEM})`]),
  t("memory_relations", [`t.project_id = $1 AND t.source_id IN (${MEM})`, `t.project_id = $1 AND t.target_id IN (${MEM})`]),
  t("memory_embeddings", [`t.project_id = $1 AND t.memory_id IN (${MEM})`, `t.project_id = $1 AND t.user_id = $2`]),
  t("import_external_ids", [
    `t.project_id = $1 AND t.local_id IN (${MEM})`,
    `t.project_id = $1 AND t.local_id IN (${MSG})`,
    `t.project_id = $1 AND t.local_id IN (${CONV})`,
  ]),
  t("memories", [`t.project_id = $1 AND t.user_id = $2`]),
  t("agentscope_summaries", [`t.project_id = $1 AND t.conversation_id IN (SELECT c.id::text FROM conversations c WHERE c.project_id = $1 AND c.end_user_id = $2)`]),
  t("node_memories", [`t.project_id = $1 AND t.conversation_id IN (${CONV})`]),
  t("message_files", [`t.project_id = $1 AND t.message_id IN (${MSG})`]),
  // The prompts captured over OTLP (lib/capture): the messages' own texts and more.
  // Keyed by their turn (migration 20261129210000_captured_span_compact): found through the user's turns.
  t("captured_spans", [`t.project_id = $1 AND t.message_id IN (${MSG})`]),
  // Their messages, stored once per conversation (lib/capture/prompt-store.ts).
  t("captured_messages", [`t.project_id = $1 AND t.conversation_id IN (${CONV})`]),
  // A half of a turn still waiting for the other over OTLP (lib/capture), under the end user it or its span names.
  // Erased, not exported: a buffer of at most an hour whose content the export gives once joined (captured_messages).
  t("otlp_pending", [`t.project_id = $1 AND t.end_user_id = $2`], false),
  t("messages", [`t.project_id = $1 AND t.conversation_id IN (${CONV})`]),
  t("conversations", [`t.project_id = $1 AND t.end_user_id = $2`]),
  t("memory_user_counts", [`t.project_id = $1 AND t.user_id = $2`], false),
  // Vectors per user and model (kept by triggers; an as-of search reads it): the row names the user.
  t("memory_embedding_counts", [`t.project_id = $1 AND t.user_id = $2`], false),
];

/** Where rows go back on import: parents before the rows that point at them. */
export const IMPORT_ORDER = [
  "conversations",
  "messages",
  "message_files",
  "captured_messages",
  "captured_spans",
  "node_memories",
  "agentscope_summaries",
  "memories",
  "memory_embeddings",
  "memory_relations",
  "memory_events",
  "memory_retrievals",
  "memory_retrieval_hits",
  "memory_review_items",
  "offloaded_contents",
  "import_external_ids",
  // Under their set and run (project-level rows an erasure keeps): a case before its results.
  "eval_cases",
  "eval_run_cases",
  // After their turns.
  "incidents",
  "incident_suppressions",
] as const;

export type TableCounts = Record<string, number>;

/** The user's rows per table, right now (the dry run; zero everywhere once erased). */
export async function countUserRows(sql: Pick<ProjectSql, "query" | "projectId">, userId: string): Promise<TableCounts> {
  const cols = USER_TABLES.map((u) => {
    const count = `(SELECT count(*) FROM ${u.table} t WHERE ${u.where})`;
    return `${u.guard ? `CASE WHEN ${u.guard} THEN ${count} ELSE 0 END` : count}::int AS ${u.table}`;
  }).join(",\n");
  const [row] = await sql.query<Record<string, number>>(`SELECT ${cols}`, [sql.projectId, userId]);
  return Object.fromEntries(USER_TABLES.map((u) => [u.table, Number(row[u.table])]));
}

export const totalOf = (c: TableCounts) => Object.values(c).reduce((a, b) => a + b, 0);

/**
 * Whether the user has any row left, table by table until one is found: the user's memories
 * or conversations answer at once (an index probe), where a count would read every row.
 */
export async function userHasRows(sql: Pick<ProjectSql, "query" | "projectId">, userId: string): Promise<boolean> {
  const first = ["memories", "conversations"];
  const order = [...USER_TABLES].sort((a, b) => Number(first.includes(b.table)) - Number(first.includes(a.table)));
  for (const u of order) {
    for (const part of u.parts) {
      const [r] = await sql.query<{ any: boolean }>(`SELECT EXISTS (SELECT 1 FROM ${u.table} t WHERE ${part}) AS any`, [sql.projectId, userId]);
      if (r.any) return true;
    }
  }
  return false;
}
