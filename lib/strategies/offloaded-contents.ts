import "server-only";
import { notFound } from "../errors/domain-errors";
import type { SqlRunner } from "../db/migrations";

export async function storeOffloads(sql: SqlRunner, offloads: { ref: string; content: string; tokens: number }[]): Promise<void> {
  if (!offloads.length) return;
  await sql.query(
    `INSERT INTO offloaded_contents (ref, content, tokens)
     SELECT * FROM unnest($1::uuid[], $2::text[], $3::int[])`,
    [offloads.map((o) => o.ref), offloads.map((o) => o.content), offloads.map((o) => o.tokens)],
  );
}

export async function readOffload(sql: SqlRunner, ref: string) {
  const [row] = await sql.query<{ ref: string; content: string; tokens: number; created_at: Date | string }>(
    `SELECT ref, content, tokens, created_at FROM offloaded_contents WHERE ref = $1`,
    [ref],
  );
  if (!row) throw notFound("Offloaded content", ref);
  return { ...row, created_at: new Date(row.created_at).toISOString() };
}
