import net from "node:net";
import { startPgWireServer } from "./pg-wire-server";
import { createFreshDatabase, realPostgresUrl } from "./real-postgres";

// A PostgreSQL database of a test's own, optionally reachable on a port the test chose: a fresh
// database on the real server when one is configured (through a TCP forwarder on that port),
// else a pglite-socket server. pglite-socket costs an initdb (about 5 CPU-seconds) per start.

export type ScratchPostgres = { url: string; real: boolean; stop(): Promise<void> };

export async function startScratchPostgres(opts: { port?: number } = {}): Promise<ScratchPostgres> {
  const server = realPostgresUrl();
  if (!server) return { ...(await startPgWireServer(opts)), real: false };
  const db = await createFreshDatabase(server);
  if (opts.port === undefined) return { url: db.url, real: true, stop: () => db.drop() };

  const target = new URL(db.url);
  const sockets = new Set<net.Socket>();
  const forwarder = net.createServer((client) => {
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
    forwarder.once("error", reject);
    forwarder.listen(opts.port, "127.0.0.1", () => resolve());
  });
  const url = new URL(db.url);
  url.hostname = "127.0.0.1";
  url.port = String(opts.port);
  return {
    url: url.toString(),
    real: true,
    async stop() {
      for (const s of sockets) s.destroy();
      await new Promise((r) => forwarder.close(r));
      await db.drop();
    },
  };
}
