import net from "node:net";
import { startPgWireServer } from "./pg-wire-server";
import { createFreshDatabase, realPostgresUrl } from "./real-postgres";

// A PostgreSQL database of a test's own: a fresh database on the real server when one is
// configured, else a pglite-socket server. pglite-socket costs an initdb (about 5 CPU-seconds)
// per start.

export type ScratchPostgres = { url: string; real: boolean; stop(): Promise<void> };

export async function startScratchPostgres(): Promise<ScratchPostgres> {
  const server = realPostgresUrl();
  if (!server) return { ...(await startPgWireServer()), real: false };
  const db = await createFreshDatabase(server);
  return { url: db.url, real: true, stop: () => db.drop() };
}

/**
 * A scratch database on `port` that does not listen yet: its URL is known first (for a server
 * that must start while the database is down), `listen()` brings it up. On the real server,
 * the URL names the fresh database, reached through a TCP forwarder on `port`.
 */
export async function reserveScratchPostgres(port: number): Promise<ScratchPostgres & { listen(): Promise<void> }> {
  const server = realPostgresUrl();
  if (!server) {
    let pg: { stop(): Promise<void> } | undefined;
    return {
      url: `postgresql://postgres:postgres@127.0.0.1:${port}/postgres?sslmode=disable`,
      real: false,
      async listen() {
        pg = await startPgWireServer({ port });
      },
      stop: async () => pg?.stop(),
    };
  }
  const db = await createFreshDatabase(server);
  const target = new URL(db.url);
  const sockets = new Set<net.Socket>();
  let forwarder: net.Server | undefined;
  const url = new URL(db.url);
  url.hostname = "127.0.0.1";
  url.port = String(port);
  return {
    url: url.toString(),
    real: true,
    async listen() {
      const f = net.createServer((client) => {
        const upstream = net.connect(Number(target.port || 5432), target.hostname);
        for (const s of [client, upstream]) {
          sockets.add(s);
          s.on("close", () => sockets.delete(s));
        }
        client.on("error", () => upstream.destroy());
        upstream.on("error", () => client.destroy());
        client.pipe(upstream).pipe(client);
      });
      await new Promise<void>((resolve, reject) => {
        f.once("error", reject);
        f.listen(port, "127.0.0.1", () => resolve());
      });
      forwarder = f;
    },
    async stop() {
      for (const s of sockets) s.destroy();
      if (forwarder) await new Promise((r) => forwarder!.close(r));
      await db.drop();
    },
  };
}
