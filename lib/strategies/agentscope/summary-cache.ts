import "server-only";
import type { ProjectSql } from "../../db/project-sql";

// Summaries the chat model wrote for auto_context, so a replay run again (a page reload,
// a restart, another instance on the same database) makes no model call. Stored per
// project, conversation ('' for a pasted history), step (model call) and a hash of what
// was sent; without a database (benchmarks, scripts) they are kept in this process.

export type SummaryKey = { conversationId: string | null; step: number; hash: string };

export type SummaryCache = {
  get(key: SummaryKey): Promise<string | undefined>;
  put(key: SummaryKey, summary: string, model: string): Promise<void>;
};

/** The database's cache, for one project. */
export function storedSummaryCache(sql: ProjectSql): SummaryCache {
  return {
    async get(k) {
      const [row] = await sql.query<{ summary: string }>(
        `SELECT summary FROM agentscope_summaries
          WHERE project_id = $1 AND conversation_id = $2 AND step = $3 AND input_hash = $4`,
        [sql.projectId, k.conversationId ?? "", k.step, k.hash],
      );
      return row?.summary;
    },
    async put(k, summary, model) {
      // Two replays that missed at once both asked the model; the first answer stays.
      await sql.query(
        `INSERT INTO agentscope_summaries (project_id, conversation_id, step, input_hash, model, summary)
         VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING`,
        [sql.projectId, k.conversationId ?? "", k.step, k.hash, model, summary],
      );
    },
  };
}

const MEMORY_LIMIT = 5000;
const memory = new Map<string, string>();

/** Empties this process's cache (lib/privacy: after an erasure). */
export function clearProcessSummaries(): void {
  memory.clear();
}

/** This process's cache (oldest entries go past MEMORY_LIMIT). */
export const processSummaryCache: SummaryCache = {
  async get(k) {
    return memory.get(`${k.conversationId ?? ""}\u0000${k.step}\u0000${k.hash}`);
  },
  async put(k, summary) {
    if (memory.size >= MEMORY_LIMIT) memory.delete(memory.keys().next().value!);
    memory.set(`${k.conversationId ?? ""}\u0000${k.step}\u0000${k.hash}`, summary);
  },
};
