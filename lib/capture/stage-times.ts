// Where one OTLP export request spent its time, by stage (body read, gzip, decode, span
// reading, token counts, the database), answered as a Server-Timing header (W3C Server
// Timing): bench/otel.ts sums it over a run to say which stage limits ingest, and an
// operator sees it in any HTTP client. Durations only: nothing about the spans' contents.

export type Stage = "read" | "inflate" | "decode" | "classify" | "tokens" | "db";

export class StageTimes {
  private readonly ms = new Map<Stage, number>();

  /** Runs fn and adds its wall time to `stage` (a stage may run more than once). */
  async time<T>(stage: Stage, fn: () => Promise<T> | T): Promise<T> {
    const t0 = performance.now();
    try {
      return await fn();
    } finally {
      this.ms.set(stage, (this.ms.get(stage) ?? 0) + performance.now() - t0);
    }
  }

  /** `read;dur=1.2, decode;dur=3.4`: the stages that ran, in the order they first ran. */
  header(): string {
    return [...this.ms].map(([s, d]) => `${s};dur=${d.toFixed(1)}`).join(", ");
  }
}

/** A Server-Timing header read back: stage name to milliseconds (unknown entries kept). */
export function parseServerTiming(header: string | null | undefined): Record<string, number> {
  const out: Record<string, number> = {};
  for (const entry of (header ?? "").split(",")) {
    const [name, ...params] = entry.trim().split(";");
    const dur = params.map((p) => /^\s*dur=([0-9.]+)\s*$/.exec(p)?.[1]).find(Boolean);
    if (name && dur) out[name] = (out[name] ?? 0) + Number(dur);
  }
  return out;
}
