import "server-only";
import { ConfigurationError } from "../errors/domain-errors";
import type { StoreRow } from "./parse-langgraph";

// LangGraph's store table read from its own PostgreSQL (MEMSCOPE_LANGGRAPH_DATABASE_URL),
// read only, as the Dify importer reads Dify's: sessions opened with
// default_transaction_read_only, one SELECT of the table. The TTL columns are read when the
// table has them (stores created before LangGraph added TTL have none).

export const LANGGRAPH_DB_ENV = "MEMSCOPE_LANGGRAPH_DATABASE_URL";

export async function readStoreRows(url = process.env[LANGGRAPH_DB_ENV]?.trim() || null): Promise<StoreRow[]> {
  if (!url) throw new ConfigurationError("langgraph_database_not_configured", `Set ${LANGGRAPH_DB_ENV} to the PostgreSQL URL of a LangGraph store, or upload its SQL dump`, [{ field: LANGGRAPH_DB_ENV, message: "not set" }]);
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString: url, options: "-c default_transaction_read_only=on -c statement_timeout=120000", connectionTimeoutMillis: 10_000 });
  client.on("error", () => {}); // a connection ended between queries: the next query rejects with the cause
  try {
    await client.connect();
    const cols = new Set(
      (await client.query<{ column_name: string }>(`SELECT column_name FROM information_schema.columns WHERE table_name = 'store' AND table_schema = current_schema()`)).rows.map((r) => r.column_name),
    );
    if (!cols.has("prefix") || !cols.has("key") || !cols.has("value")) throw new Error("no store table (prefix, key, value) in its current schema");
    const ttl = cols.has("expires_at") ? "expires_at::text" : "NULL::text";
    const { rows } = await client.query<{ prefix: string; key: string; value: string; created_at: string | null; updated_at: string | null; expires_at: string | null }>(
      `SELECT prefix, key, value::text AS value, created_at::text AS created_at, updated_at::text AS updated_at, ${ttl} AS expires_at FROM store ORDER BY prefix, key`,
    );
    return rows.map((r) => ({ ...r, record: `store ${r.prefix}/${r.key}` }));
  } catch (e) {
    if (e instanceof ConfigurationError) throw e;
    throw new ConfigurationError("langgraph_database_unreachable", `LangGraph's store could not be read: ${(e as Error).message}`, [{ field: LANGGRAPH_DB_ENV, message: (e as Error).message }]);
  } finally {
    await client.end().catch(() => {});
  }
}
