import fs from "node:fs";
import pg from "pg";

// CPU time for bench:otel's "CPU seconds per 1 000 spans": the server process (all its
// threads, the token workers included) and the PostgreSQL backends serving one database.
// Both from /proc (utime + stime): on a shared machine this says what the code costs
// whatever else runs, where wall time does not. null where /proc is not there.

function statCpuSeconds(pid: number, file = `/proc/${pid}/stat`): number | null {
  try {
    const stat = fs.readFileSync(file, "utf8");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" "); // fields from the 3rd (state) on
    return (Number(f[11]) + Number(f[12])) / 100; // utime + stime, USER_HZ
  } catch {
    return null;
  }
}

export const processCpuSeconds = (pid: number) => statCpuSeconds(pid);

/**
 * The process's CPU seconds by thread: the main thread (its id is the process's; the request
 * handlers and the embedded database run there) apart, the others summed by name (V8's GC and
 * compiler threads, libuv's pool, worker threads). A thread that ended is no longer listed.
 */
export function threadCpuSeconds(pid: number): Record<string, number> | null {
  try {
    const out: Record<string, number> = {};
    for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
      const cpu = statCpuSeconds(pid, `/proc/${pid}/task/${tid}/stat`) ?? 0;
      const name = Number(tid) === pid ? "main thread" : fs.readFileSync(`/proc/${pid}/task/${tid}/comm`, "utf8").trim();
      out[name] = (out[name] ?? 0) + cpu;
    }
    return out;
  } catch {
    return null;
  }
}

/** The CPU seconds of the backends connected to `url`'s database (the server's pool), when PostgreSQL runs on this machine. */
export async function backendCpuSeconds(url: string): Promise<number | null> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const { rows } = await c.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`);
    let sum = 0;
    for (const r of rows) {
      const s = statCpuSeconds(r.pid);
      if (s === null) return null;
      sum += s;
    }
    return sum;
  } finally {
    await c.end();
  }
}
