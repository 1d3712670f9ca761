import "server-only";
import { getProjectSql } from "../db/get-project-sql";
import type { ProjectSql } from "../db/project-sql";
import type { Access, Actor } from "./access";

/** The label history records for who acted: an account's email, an API key's name; nobody in open mode. */
export function historyLabel(actor: Actor): string | null {
  switch (actor.kind) {
    case "account":
      return actor.label;
    case "key":
      return `API key ${actor.label}`;
    case "bootstrap":
      return actor.label;
    case "open":
      return null;
  }
}

/** The database as the caller may see it: their project's rows, their name on what they change. */
export function dataSql(access: Access): Promise<ProjectSql> {
  return getProjectSql(access.projectId, historyLabel(access.actor));
}
