import "server-only";
import { createHash, randomBytes } from "node:crypto";
import type { ProjectSql } from "../db/project-sql";
import type { PhysicalReport } from "./physical";
import type { Probes } from "./probes";

// The receipt of an erasure: what went (rows per table), when, by whom, and the probes run
// afterwards. It names the person only by a salted hash of their id: the audit log keeps it
// without keeping the personal data it is about. The salt is the project's own (random,
// app_settings), so a hash cannot be compared across projects or looked up in a table of
// hashes of likely ids; whoever knows an id and can read the project's settings can check
// that a receipt is about it, which is what a data protection officer needs to answer the
// person.

export const SALT_KEY = "privacy.salt";

export async function projectSalt(sql: ProjectSql): Promise<string> {
  await sql.query(
    `INSERT INTO app_settings (project_id, key, value) VALUES ($1, $2, to_jsonb($3::text)) ON CONFLICT (project_id, key) DO NOTHING`,
    [sql.projectId, SALT_KEY, randomBytes(32).toString("hex")],
  );
  const [row] = await sql.query<{ salt: string }>(`SELECT value #>> '{}' AS salt FROM app_settings WHERE project_id = $1 AND key = $2`, [sql.projectId, SALT_KEY]);
  return row.salt;
}

export function subjectHash(salt: string, value: string): string {
  return `sha256:${createHash("sha256").update(`${salt}\0${value}`).digest("hex")}`;
}

export type Receipt = {
  receipt_id: string;
  kind: "user" | "text";
  /** The user (user erasure, or text erasure of one user) as a salted hash; null for the project. */
  subject: string | null;
  /** Text erasure: how many strings (never the strings). */
  strings: number | null;
  started_at: string;
  finished_at: string;
  by: string;
  resumed: boolean;
  counts: Record<string, number>;
  total: number;
  physical: PhysicalReport | null;
  probes: Probes;
  /** Where copies may remain, out of Memscope's reach. */
  outside_reach: string[];
  /** User erasure: milliseconds per stage (each table's deletes, the probes, ...), to see where the time went. */
  stages_ms?: Record<string, number>;
};

export const OUTSIDE_REACH = [
  "exports and receipts downloaded before the erasure, and anything clients cached",
  "other systems the data came from (Dify, mem0, OpenAI exports): erase it there too, or an import brings it back",
  "database backups, WAL archives and replicas, unless a physical erasure says otherwise",
];
