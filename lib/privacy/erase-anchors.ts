import "server-only";

// The erasure's anchored steps (lib/privacy/erase-user.ts): most of a large user's rows hang
// off their memories and turns. Each batch takes `size` ids of the anchor table (an index
// scan of the user's rows), then deletes, dependents first, every row that points at those
// ids, one statement per table through the index on that column (migration
// 20261126160000_erasure_indexes adds the ones that were missing), and the anchors last. The
// foreign keys' own checks on each deleted parent then find no child left.
// A delete takes $1 the project and $2 the batch's ids (uuid[]); a pick takes $1 the project
// and $2 the end user, or for turns and conversations the conversations at hand (uuid[]).

export type Anchor = {
  name: string;
  /** The next batch's anchor ids. */
  pick: (size: number) => string;
  /** In order: children before the rows they point at, the anchor table last. */
  deletes: { table: string; sql: string }[];
};

/** The first table of USER_TABLES the anchored steps cover: they run before its parts. */
export const ANCHORED_FROM = "memory_retrieval_hits";

const IDS = `ANY($2::uuid[])`;

/** Retrievals made for the user, with their hits. */
const RETRIEVALS: Anchor = {
  name: "retrievals",
  pick: (n) => `SELECT id FROM memory_retrievals WHERE project_id = $1 AND user_id = $2 LIMIT ${n}`,
  deletes: [
    { table: "memory_retrieval_hits", sql: `DELETE FROM memory_retrieval_hits WHERE project_id = $1 AND retrieval_id = ${IDS}` },
    { table: "memory_retrievals", sql: `DELETE FROM memory_retrievals WHERE project_id = $1 AND id = ${IDS}` },
  ],
};

/** The user's memories and everything about them. */
const MEMORIES: Anchor = {
  name: "memories",
  pick: (n) => `SELECT id FROM memories WHERE project_id = $1 AND user_id = $2 LIMIT ${n}`,
  deletes: [
    { table: "memory_retrieval_hits", sql: `DELETE FROM memory_retrieval_hits WHERE project_id = $1 AND memory_id = ${IDS}` },
    { table: "memory_review_items", sql: `DELETE FROM memory_review_items WHERE project_id = $1 AND memory_id = ${IDS}` },
    { table: "memory_review_items", sql: `DELETE FROM memory_review_items WHERE project_id = $1 AND other_memory_id = ${IDS}` },
    { table: "memory_events", sql: `DELETE FROM memory_events WHERE project_id = $1 AND memory_id = ${IDS}` },
    { table: "memory_relations", sql: `DELETE FROM memory_relations WHERE project_id = $1 AND source_id = ${IDS}` },
    { table: "memory_relations", sql: `DELETE FROM memory_relations WHERE project_id = $1 AND target_id = ${IDS}` },
    { table: "memory_embeddings", sql: `DELETE FROM memory_embeddings WHERE project_id = $1 AND memory_id = ${IDS}` },
    { table: "import_external_ids", sql: `DELETE FROM import_external_ids WHERE project_id = $1 AND local_id = ${IDS}` },
    { table: "memories", sql: `DELETE FROM memories WHERE project_id = $1 AND id = ${IDS}` },
  ],
};

/** Turns of a few conversations ($3), with their files, captured prompts and import ids. */
const TURNS: Anchor = {
  name: "turns",
  pick: (n) => `SELECT id FROM messages WHERE project_id = $1 AND conversation_id = ANY($2::uuid[]) LIMIT ${n}`,
  deletes: [
    { table: "message_files", sql: `DELETE FROM message_files WHERE project_id = $1 AND message_id = ${IDS}` },
    { table: "captured_spans", sql: `DELETE FROM captured_spans WHERE project_id = $1 AND message_id = ${IDS}` },
    { table: "import_external_ids", sql: `DELETE FROM import_external_ids WHERE project_id = $1 AND local_id = ${IDS}` },
    { table: "messages", sql: `DELETE FROM messages WHERE project_id = $1 AND id = ${IDS}` },
  ],
};

/** Conversations whose turns are gone, with what hangs off them (their captured spans went with the turns: each is keyed by its turn). */
const CONVERSATIONS: Anchor = {
  name: "conversations",
  pick: () => `SELECT id FROM conversations WHERE project_id = $1 AND id = ANY($2::uuid[])`,
  deletes: [
    {
      table: "memory_retrieval_hits",
      sql: `DELETE FROM memory_retrieval_hits h USING memory_retrievals r
             WHERE h.project_id = $1 AND r.project_id = $1 AND h.retrieval_id = r.id AND r.conversation_id = ${IDS}`,
    },
    { table: "memory_retrievals", sql: `DELETE FROM memory_retrievals WHERE project_id = $1 AND conversation_id = ${IDS}` },
    { table: "memory_review_items", sql: `DELETE FROM memory_review_items WHERE project_id = $1 AND source_session_id = ${IDS}` },
    { table: "offloaded_contents", sql: `DELETE FROM offloaded_contents WHERE project_id = $1 AND conversation_id = ${IDS}` },
    { table: "agentscope_summaries", sql: `DELETE FROM agentscope_summaries WHERE project_id = $1 AND conversation_id = ANY($2::uuid[]::text[])` },
    { table: "node_memories", sql: `DELETE FROM node_memories WHERE project_id = $1 AND conversation_id = ${IDS}` },
    { table: "captured_messages", sql: `DELETE FROM captured_messages WHERE project_id = $1 AND conversation_id = ${IDS}` },
    { table: "import_external_ids", sql: `DELETE FROM import_external_ids WHERE project_id = $1 AND local_id = ${IDS}` },
    { table: "conversations", sql: `DELETE FROM conversations WHERE project_id = $1 AND id = ${IDS}` },
  ],
};

/** Every anchor, for the test that each delete finds its rows through an index. */
export const ANCHOR_LIST: readonly Anchor[] = [RETRIEVALS, MEMORIES, TURNS, CONVERSATIONS];

/** What a step needs of the erasure's batches (erase-user.ts's Batches), declared here so that
 * this table does not import the module that runs it. */
export type AnchorBatches = {
  anchor(a: Anchor, size: number, within?: unknown): Promise<void>;
  timed<T>(stage: string, fn: () => Promise<T>): Promise<T>;
  userConversations(n: number): Promise<string[]>;
};

export type AnchoredStep = (b: AnchorBatches, size: number) => Promise<void>;

/**
 * In order. Conversations go a few at a time (about `size` turns' worth at 50 turns each): their
 * turns `size` a transaction, then the conversations themselves with what else hangs off them.
 */
export const ANCHORS: AnchoredStep[] = [
  (b, size) => b.anchor(RETRIEVALS, size),
  (b, size) => b.anchor(MEMORIES, size),
  async (b, size) => {
    const per = Math.max(1, Math.floor(size / 50));
    for (;;) {
      const convs = await b.timed("conversations: pick", () => b.userConversations(per));
      if (!convs.length) return;
      await b.anchor(TURNS, size, convs);
      await b.anchor(CONVERSATIONS, convs.length, convs);
      if (convs.length < per) return;
    }
  },
];
