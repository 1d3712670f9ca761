import "server-only";
import type { ProjectSql } from "../db/project-sql";
import { DomainError } from "../errors/domain-errors";
import { connectDify, difyDatabaseUrl, listDifyApps } from "./dify-db";
import type { DifyApps } from "./schemas";

/** What the /import page offers under "Dify database": never an error status, a state to show. */
export async function difyApps(sql: ProjectSql): Promise<DifyApps> {
  const url = difyDatabaseUrl();
  if (!url) return { configured: false, error: null, data: [] };
  let client;
  try {
    client = await connectDify(url);
    return { configured: true, error: null, data: await listDifyApps(client, sql, url) };
  } catch (e) {
    const message = e instanceof DomainError ? e.message : `Could not read Dify's tables: ${(e as Error).message}`;
    return { configured: true, error: message, data: [] };
  } finally {
    await client?.end().catch(() => {});
  }
}
