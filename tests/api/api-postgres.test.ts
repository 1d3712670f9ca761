import { defineApiSuite } from "./api-contract";
import { startAppServer } from "../helpers/app-server";
import { startPgWireServer } from "../helpers/pg-wire-server";

// The same migrations and API through DATABASE_URL and @prisma/adapter-pg, against a
// PostgreSQL wire-protocol server (pglite-socket with pgvector on 127.0.0.1).
defineApiSuite("PostgreSQL via DATABASE_URL", "postgres", async () => {
  const pg = await startPgWireServer();
  try {
    const app = await startAppServer({ databaseUrl: pg.url });
    return {
      url: app.url,
      async stop() {
        await app.stop();
        await pg.stop();
      },
    };
  } catch (e) {
    await pg.stop();
    throw e;
  }
});
