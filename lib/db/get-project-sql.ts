import "server-only";
import { getDb } from "./get-db";
import { projectSql, type ProjectSql } from "./project-sql";

/**
 * The database, scoped to one project; route handlers pass `access.projectId` and, where
 * they write history, `access.actor.label`.
 */
export async function getProjectSql(projectId: string, actorLabel: string | null = null): Promise<ProjectSql> {
  return projectSql((await getDb()).sql, projectId, actorLabel);
}
