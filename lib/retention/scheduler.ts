import "server-only";
import type { Database } from "../db/open-database";
import { onShutdown } from "../process/shutdown";
import { runDueRules } from "./run-rule";

// Runs due retention rules (each daily) in the background. Idle, it costs one indexed query
// per check (MEMSCOPE_RETENTION_CHECK_MS, default 10 minutes; 0 turns the schedule off) and its
// timer never keeps the process alive. On shutdown (SIGTERM/SIGINT, scripts/serve.mjs) the
// timer stops and a run under way stops between two batches: each batch is one transaction,
// and the next run goes on from what is left.

export const DEFAULT_RETENTION_CHECK_MS = 10 * 60_000;

export function retentionCheckMs(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.MEMSCOPE_RETENTION_CHECK_MS;
  if (raw === undefined || raw === "") return DEFAULT_RETENTION_CHECK_MS;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new Error(`MEMSCOPE_RETENTION_CHECK_MS must be a whole number of milliseconds (0: off), not "${raw}"`);
  return n;
}

export function startRetentionScheduler(db: Database, everyMs = retentionCheckMs()): () => Promise<void> {
  let stopped = false;
  let running: Promise<unknown> | null = null;
  const tick = () => {
    if (running || stopped) return;
    running = runDueRules(db, () => stopped)
      .then((runs) => {
        for (const r of runs) console.log(`[memscope] retention rule ${r.rule_id} (${r.kind}, ${r.days} days) ran: ${JSON.stringify(r.counts)}`);
      })
      .catch((e) => console.error(`[memscope] retention pass failed: ${(e as Error).message}`))
      .finally(() => {
        running = null;
      });
  };
  const timer = everyMs > 0 ? setInterval(tick, everyMs) : null;
  timer?.unref();
  const stop = async () => {
    stopped = true;
    if (timer) clearInterval(timer);
    await running;
  };
  onShutdown(stop);
  return stop;
}
