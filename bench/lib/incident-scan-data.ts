// The data set the backfill-scan diagnostics share (bench/diag/incidents-*.ts): COPIES copies
// of the labelled incident set and N filler conversations. On PGlite it is loaded once into
// DATA and copied for each run (a run writes incidents); on PostgreSQL (PG_URL) it is loaded
// when the project is empty. Either way the run starts without incidents or scan jobs.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import { openDatabase, type Database } from "../../lib/db/open-database";
import { projectSql, type ProjectSql } from "../../lib/db/project-sql";
import { INCIDENT_SET, loadScenarios } from "../../tests/helpers/incident-set";
import { makeTempDir } from "./common";
import { loadFiller } from "./incident-filler";

export const SCAN_DATA_DIR = process.env.DATA || "/tmp/memscope-incidents-scan-data";

async function load(sql: ProjectSql) {
  for (let c = 0; c < Number(process.env.COPIES || 10); c++) await loadScenarios(sql, INCIDENT_SET, { suffix: `c${c}` });
  await loadFiller(sql, Number(process.env.N || 500));
}

/** Opens the data set; `dir` is the PGlite run copy to remove afterwards ("" on PostgreSQL). */
export async function openScanDataSet(url: string | undefined, tempPrefix: string): Promise<{ db: Database; base: ProjectSql; dir: string }> {
  let dir = "";
  if (!url && !fs.existsSync(SCAN_DATA_DIR)) {
    const db = await openDatabase({ kind: "pglite", dataDir: SCAN_DATA_DIR });
    await load(projectSql(db.sql, "default"));
    await db.sql.exec("ANALYZE");
    await db.close();
  }
  if (!url) {
    dir = makeTempDir(tempPrefix);
    execFileSync("cp", ["-a", `${SCAN_DATA_DIR}/.`, dir]);
  }
  const db = url ? await openDatabase({ kind: "postgres", url }) : await openDatabase({ kind: "pglite", dataDir: dir });
  const base = projectSql(db.sql, "default");
  if (url) {
    const [n] = await base.query<{ n: string }>(`SELECT count(*) AS n FROM conversations WHERE project_id = 'default'`);
    if (Number(n.n) === 0) {
      await load(base);
      await db.sql.exec("ANALYZE");
    }
  }
  await base.query(`DELETE FROM incidents WHERE project_id = 'default'`);
  await base.query(`DELETE FROM incident_scans WHERE project_id = 'default'`);
  return { db, base, dir };
}

/** The main thread's CPU seconds alone (PGlite and the rules run there; GC helpers and compilers do not). */
export function mainThreadCpu(): number {
  const f = fs.readFileSync(`/proc/self/task/${process.pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(f[11]) + Number(f[12])) / 100;
}
