import "server-only";
import type { ProjectSql } from "../db/project-sql";

// The same database handle, giving the event loop a turn before each statement. On the
// embedded database a statement runs on the server's one thread, and the statements of one
// search chain through promise callbacks without the event loop ever polling for I/O: a
// request that arrived meanwhile waited for a whole search (measured: /ready p50 153 ms
// during a 1 000-case run on a loaded machine). With a turn before each statement it waits
// for at most one statement. A run (run-eval.ts) reads through this; on PostgreSQL the
// statements are network round trips anyway and the turn costs nothing measurable.

const turn = () => new Promise<void>((r) => setImmediate(r));

export function yieldingSql(sql: ProjectSql): ProjectSql {
  return {
    projectId: sql.projectId,
    actorLabel: sql.actorLabel,
    exec: async (text: string) => {
      await turn();
      return sql.exec(text);
    },
    query: async <T = Record<string, unknown>>(text: string, params?: unknown[]) => {
      await turn();
      return sql.query<T>(text, params);
    },
    transaction: (fn) => sql.transaction((tx) => fn(yieldingSql(tx))),
  };
}
