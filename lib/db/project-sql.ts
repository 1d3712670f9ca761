import type { SqlRunner } from "./migrations";

// Every stored row belongs to a project. Data functions take a ProjectSql rather than a
// bare SqlRunner, so the compiler finds each call site that has not said which project it
// acts for; each query filters (and each insert writes) `project_id = sql.projectId`.
// A row of another project is then simply not found: callers answer 404, never 403.
// It also carries who acts (an account's email or an API key's name), which history
// events record, so that label need not be threaded through every curation function.

/** The project rows from before projects existed live in; the demo seed goes there too. */
export const DEFAULT_PROJECT_ID = "default";

export type ProjectSql = Omit<SqlRunner, "transaction"> & {
  readonly projectId: string;
  readonly actorLabel: string | null;
  /** BEGIN/COMMIT on one connection; the transaction keeps the same project and actor. */
  transaction<T>(fn: (tx: ProjectSql) => Promise<T>): Promise<T>;
};

export function projectSql(sql: SqlRunner, projectId: string, actorLabel: string | null = null): ProjectSql {
  return {
    projectId,
    actorLabel,
    exec: (text) => sql.exec(text),
    query: (text, params) => sql.query(text, params),
    transaction: (fn) => sql.transaction((tx) => fn(projectSql(tx, projectId, actorLabel))),
  };
}
