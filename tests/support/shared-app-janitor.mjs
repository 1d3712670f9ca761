// Cleans up after a shared test server (tests/helpers/shared-app.ts) once the Vitest worker that
// started it is gone. A worker runs many files, so no file's afterAll may stop the server, and
// Vitest ends its workers with SIGTERM and a SIGKILL 0.5 s later: too short to stop a server and
// remove its data folder, and a killed worker runs no exit handler at all. This process is
// detached: it polls the worker's pid, then stops the server (SIGTERM, SIGKILL after 5 s), removes
// the folders and drops the PostgreSQL database.
//
// argv[2]: JSON {watch: pid, pids: number[], dirs: string[], drop?: {serverUrl, name}}
import fs from "node:fs";
import pg from "pg";

const spec = JSON.parse(process.argv[2]);
const alive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return e.code === "EPERM";
  }
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

while (alive(spec.watch)) await sleep(300);

for (const pid of spec.pids) {
  try {
    process.kill(pid, "SIGTERM");
  } catch {
    /* already gone */
  }
}
const deadline = Date.now() + 5000;
while (spec.pids.some(alive) && Date.now() < deadline) await sleep(100);
for (const pid of spec.pids.filter(alive)) {
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    /* gone meanwhile */
  }
}
for (const dir of spec.dirs) fs.rmSync(dir, { recursive: true, force: true });
if (spec.drop) {
  const c = new pg.Client({ connectionString: spec.drop.serverUrl });
  c.on("error", () => {});
  try {
    await c.connect();
    await c.query(`DROP DATABASE IF EXISTS ${spec.drop.name} WITH (FORCE)`);
  } catch {
    /* the cluster is gone already (CI stops it when its shell exits) */
  } finally {
    await c.end().catch(() => {});
  }
}
