import "server-only";
import { getDb } from "./get-db";
import { projectSql, type ProjectSql } from "./project-sql";

/** The database, scoped to one project (route handlers pass `access.projectId`). */
export async function getProjectSql(projectId: string): Promise<ProjectSql> {
  return projectSql((await getDb()).sql, projectId);
}
