// Creates a new PGlite data folder (PostgreSQL's initdb) and exits. open-database.ts runs it as a
// child process on a folder without a database: initdb runs in a WebAssembly instance of its own
// with the file bundle unpacked in memory, and a server that ran it in-process kept ~100 MB of
// freed but unreturned heap for its whole life (docs/benchmarks.md, memory at rest).
// Usage: node lib/db/pglite-initdb.mjs <data folder> <shared_buffers>
import { PGlite } from "@electric-sql/pglite";

const [dataDir, sharedBuffers] = process.argv.slice(2);
const pg = await PGlite.create(dataDir, { startParams: [...PGlite.defaultStartParams, "-c", `shared_buffers=${sharedBuffers}`] });
await pg.close();
