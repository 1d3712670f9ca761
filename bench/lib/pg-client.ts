import pg from "pg";

/**
 * Runs `fn` with a short-lived client of `url` and always ends it. The client has an error
 * handler: a backend that goes away while the client is idle (the database dropped, the cluster
 * stopped) emits 'error' on the client, which without a listener ends the whole bench process.
 */
export async function withPgClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: url });
  c.on("error", (e) => console.error(`(bench) PostgreSQL client: ${e.message}`));
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end().catch(() => {});
  }
}
