import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import path from "node:path";
import { startAppServer, type AppServer } from "./app-server";
import { OWNER_ENV, signInOwner, type Owner } from "./owner";
import { startPgWireServer } from "./pg-wire-server";
import { createFreshDatabase, realPostgresUrl } from "./real-postgres";
import type { DatabaseKind } from "./test-database";

// One production server per database kind per Vitest worker, shared by every API file that
// worker runs (npm test runs them --no-isolate: one process per worker, file after file). A server
// start costs about 3.5 CPU-seconds, and most files only need a server, not a server of their own
// (docs/benchmarks.md section 30). Each file gets a project of its own on it: created by the
// owner, with an API key of every scope, so a file sees only its own data (a project never sees
// another's). Files that need a server configured otherwise (rate limits, a model stub, open mode,
// restarts, the data folder, instance-wide counts) keep starting their own (test-database.ts).
//
// The server runs as any signed-in deployment does: an owner account from the environment
// (OWNER_ENV), the key rate limit off (several files' keys share one server). It is stopped by a
// detached janitor (tests/support/shared-app-janitor.mjs) once its worker exits.

type Shared = { server: AppServer; owner: Owner };

/** What a file gets: the shared server's url and a project of its own on it. */
export type SharedProject = {
  url: string;
  /** The server's process (shared: a file may read it, e.g. its RSS, never stop it). */
  pid: number;
  /** The project's id (send it as x-memscope-project, or use `owner`, bound to it). */
  project: string;
  /** A read, write and admin key of the project. */
  key: string;
  /** `authorization: Bearer <key>`, for apiClient and fetch. */
  headers: Record<string, string>;
  /** The instance owner, signed in, with this project as the current one (cookie included). */
  owner: Owner;
  logs(): string;
  /** Nothing to stop: the server outlives the file. Kept so a suite's afterAll reads as before. */
  stop(): Promise<void>;
};

const REGISTRY = Symbol.for("memscope.tests.sharedApps");
const shared: Map<DatabaseKind, Promise<Shared>> = ((globalThis as Record<symbol, unknown>)[REGISTRY] ??= new Map()) as Map<
  DatabaseKind,
  Promise<Shared>
>;

function janitor(spec: { pids: number[]; dirs: string[]; drop?: { serverUrl: string; name: string } }) {
  const script = path.resolve(__dirname, "../support/shared-app-janitor.mjs");
  const child = spawn(process.execPath, [script, JSON.stringify({ watch: process.pid, ...spec })], { detached: true, stdio: "ignore" });
  child.unref();
}

async function start(kind: DatabaseKind): Promise<Shared> {
  let server: AppServer;
  if (kind === "embedded") {
    server = await startAppServer({ env: OWNER_ENV });
    janitor({ pids: [server.pid!], dirs: [server.dataDir!] });
  } else {
    const cluster = realPostgresUrl();
    if (cluster) {
      const db = await createFreshDatabase(cluster);
      try {
        server = await startAppServer({ databaseUrl: db.url, env: OWNER_ENV });
      } catch (e) {
        await db.drop();
        throw e;
      }
      janitor({ pids: [server.pid!], dirs: [], drop: { serverUrl: cluster, name: db.name } });
    } else {
      const pg = await startPgWireServer();
      try {
        server = await startAppServer({ databaseUrl: pg.url, env: OWNER_ENV });
      } catch (e) {
        await pg.stop();
        throw e;
      }
      janitor({ pids: [server.pid!, pg.pid], dirs: [pg.dir] });
    }
  }
  return { server, owner: await signInOwner(server.url) };
}

/** A project of its own on this worker's shared server of `kind` (started at the first call). */
export async function sharedProject(kind: DatabaseKind, name = "suite"): Promise<SharedProject> {
  let s = shared.get(kind);
  if (!s) {
    s = start(kind);
    shared.set(kind, s);
    // A failed start is not cached: the next file tries again (and reports its own error).
    s.catch(() => shared.delete(kind));
  }
  const { server, owner } = await s;
  const made = await owner.post("/projects", { name: `${name} ${randomUUID().slice(0, 8)}` });
  if (!made?.id) throw new Error(`creating a project on the shared server: ${JSON.stringify(made)}`);
  const project: string = made.id;
  const key = await owner.key(`${name} key`, ["read", "write", "admin"], project);
  if (!key) throw new Error("creating the project's key on the shared server");
  const cookie = `${owner.cookie}; memscope_project=${encodeURIComponent(project)}`;
  const post = (p: string, body: unknown, other?: string) =>
    fetch(`${server.url}/api/v1${p}`, {
      method: "POST",
      headers: { cookie, origin: server.url, "content-type": "application/json", "x-memscope-project": other ?? project },
      body: JSON.stringify(body),
    }).then((r) => r.json());
  return {
    url: server.url,
    pid: server.pid!,
    project,
    key,
    headers: { authorization: `Bearer ${key}` },
    owner: { cookie, post, key: async (n, scopes, other) => (await post("/project/keys", { name: n, scopes }, other)).key },
    logs: () => server.logs(),
    stop: async () => {},
  };
}
