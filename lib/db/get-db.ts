import "server-only";
import { dbSingleton } from "./db-singleton";
import type { Database } from "./open-database";

export function getDb(): Promise<Database> {
  return dbSingleton();
}
