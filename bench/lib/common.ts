import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** The project root (bench/lib/ is two levels down). */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

export function machineInfo() {
  const cpus = os.cpus();
  return {
    cpu: cpus[0]?.model ?? "unknown",
    cores: cpus.length,
    node: process.version,
    totalMemGiB: +(os.totalmem() / 1024 ** 3).toFixed(1),
    os: `${os.type()} ${os.release()} ${os.arch()}`,
  };
}

export function printMachine() {
  const m = machineInfo();
  console.log(`Machine: ${m.cpu} | ${m.cores} cores | ${m.totalMemGiB} GiB RAM | Node ${m.node} | ${m.os}`);
  return m;
}

export function percentile(sortedAsc: number[], p: number): number {
  if (!sortedAsc.length) return NaN;
  // Nearest-rank: the smallest value with at least p% of samples at or below it.
  const rank = Math.ceil((p / 100) * sortedAsc.length);
  return sortedAsc[Math.min(sortedAsc.length, Math.max(1, rank)) - 1];
}

export type Stats = { n: number; p50: number; p95: number; min: number; max: number; mean: number };

export function stats(samples: number[]): Stats {
  const s = [...samples].sort((a, b) => a - b);
  return {
    n: s.length,
    p50: percentile(s, 50),
    p95: percentile(s, 95),
    min: s[0],
    max: s[s.length - 1],
    mean: s.reduce((a, b) => a + b, 0) / s.length,
  };
}

export const ms = (x: number) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));

export const now = () => performance.now();

/** Runs `fn` `warmup` times untimed, then up to n timed times or until budgetMs would be overrun (at least minN). */
export async function measure(
  fn: () => unknown | Promise<unknown>,
  o: { warmup: number; n: number; budgetMs?: number; minN?: number; onProgress?: (i: number, elapsedMs: number, lastMs: number) => void },
): Promise<{ samples: number[]; truncated: boolean }> {
  for (let i = 0; i < o.warmup; i++) await fn();
  const samples: number[] = [];
  const t0 = now();
  for (let i = 0; i < o.n; i++) {
    const a = now();
    await fn();
    samples.push(now() - a);
    o.onProgress?.(i + 1, now() - t0, samples[samples.length - 1]);
    // Stop once the budget is spent, or when one more sample like the last would overrun it.
    const elapsed = now() - t0;
    if (o.budgetMs !== undefined && elapsed + samples[samples.length - 1] > o.budgetMs && samples.length >= (o.minN ?? 1)) {
      return { samples, truncated: samples.length < o.n };
    }
  }
  return { samples, truncated: false };
}

export function makeTempDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export function removeDir(dir: string | undefined) {
  if (!dir) return;
  try {
    fs.rmSync(dir, { recursive: true, force: true });
  } catch (e) {
    console.error(`warning: could not remove ${dir}: ${(e as Error).message}`);
  }
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

export type Server = { base: string; port: number; pid: number; stop(): Promise<void>; log(): string };

export async function postJson<T = unknown>(url: string, body: unknown): Promise<{ status: number; json: T }> {
  const r = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  const text = await r.text();
  let json: T;
  try {
    json = JSON.parse(text) as T;
  } catch {
    json = text as T;
  }
  return { status: r.status, json };
}

/** Runs main with cleanup; exits 0 on success, 1 (after printing the reason) on failure. */
export function runMain(name: string, main: (cleanup: (fn: () => unknown | Promise<unknown>) => void) => Promise<void>) {
  const cleanups: (() => unknown | Promise<unknown>)[] = [];
  const runCleanups = async () => {
    while (cleanups.length) {
      const fn = cleanups.pop()!;
      try {
        await fn();
      } catch (e) {
        console.error(`cleanup error: ${(e as Error).message}`);
      }
    }
  };
  let interrupted = false;
  const onSignal = (sig: string) => {
    if (interrupted) return;
    interrupted = true;
    console.error(`\n${name}: interrupted by ${sig}, cleaning up`);
    void runCleanups().finally(() => process.exit(1));
  };
  process.once("SIGINT", () => onSignal("SIGINT"));
  process.once("SIGTERM", () => onSignal("SIGTERM"));
  main((fn) => cleanups.push(fn))
    .then(async () => {
      await runCleanups();
      process.exit(0);
    })
    .catch(async (e) => {
      console.error(`\n${name} FAILED: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
      await runCleanups();
      process.exit(1);
    });
}
