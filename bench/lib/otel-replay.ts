// bench:otel's agents scenario, second phase (issue 35, "Numbers"): the server's own throughput.
// In the live phase the client (250 agents, the Traceloop instrumentation, the OpenAI stub) shares
// the process and the cores with the server, and its 5 000 calls take longer than the server
// needs to store them, so spans/s there measures the client. So the live phase's exporter posts
// through a recording proxy that keeps every request exactly as the SDK sent it (method, path,
// headers, body bytes, in the order they were sent) and counts how many were in flight at once;
// the replay then posts those requests to a fresh server and database, each worker sending the
// next one as soon as its previous one is answered, with as many workers as the exporter had
// requests in flight. Only the authorization header changes (the fresh project's key).

import http from "node:http";
import type { AddressInfo } from "node:net";
import { performance } from "node:perf_hooks";
import { parseServerTiming } from "../../lib/capture/stage-times";

export type RecordedRequest = { method: string; path: string; headers: http.IncomingHttpHeaders; body: Buffer };

export type RecordingProxy = {
  url: string;
  requests: RecordedRequest[];
  /** The most requests the exporter had open at one time. */
  maxInFlight(): number;
  stop(): Promise<void>;
};

/** Hop-by-hop headers and the ones the connection itself sets: not part of what the exporter says. */
const HOP = new Set(["host", "connection", "keep-alive", "transfer-encoding", "content-length"]);

function forwardHeaders(h: http.IncomingHttpHeaders, replace: Record<string, string> = {}): http.OutgoingHttpHeaders {
  const out: http.OutgoingHttpHeaders = {};
  for (const [k, v] of Object.entries(h)) if (!HOP.has(k) && v !== undefined) out[k] = v;
  return { ...out, ...replace };
}

/** Sends one request to `base` and resolves with the status and the answer's body. */
function send(agent: http.Agent, base: string, r: RecordedRequest, replace: Record<string, string>): Promise<{ status: number; body: Buffer; headers: http.IncomingHttpHeaders }> {
  const u = new URL(r.path, base);
  return new Promise((resolve, reject) => {
    const req = http.request(
      { agent, hostname: u.hostname, port: u.port, path: u.pathname + u.search, method: r.method, headers: { ...forwardHeaders(r.headers, replace), "content-length": r.body.length } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks), headers: res.headers }));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(r.body);
  });
}

/** A proxy in front of `target` that keeps what goes through it (the exporter's requests) in order of arrival. */
export async function startRecordingProxy(target: string): Promise<RecordingProxy> {
  const requests: RecordedRequest[] = [];
  const agent = new http.Agent({ keepAlive: true });
  let inFlight = 0;
  let most = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const r: RecordedRequest = { method: req.method ?? "POST", path: req.url ?? "/", headers: req.headers, body: Buffer.concat(chunks) };
      requests.push(r);
      inFlight++;
      most = Math.max(most, inFlight);
      send(agent, target, r, {}).then(
        (a) => {
          inFlight--;
          res.writeHead(a.status, forwardHeaders(a.headers));
          res.end(a.body);
        },
        (e: Error) => {
          inFlight--;
          res.writeHead(502).end(String(e.message));
        },
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    maxInFlight: () => most,
    stop: () =>
      new Promise<void>((r) => {
        agent.destroy();
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** `stages`: the answers' Server-Timing stages summed (ms over the run): where the server's wall time went. */
export type ReplayResult = { seconds: number; answered: number; non200: string[]; partial: number; latencies: number[]; stages: Record<string, number> };

/** Posts `requests` to `base` in their order, `concurrency` at a time, each worker taking the next as soon as its previous one is answered. */
export async function replayRequests(base: string, requests: RecordedRequest[], concurrency: number, replace: Record<string, string>): Promise<ReplayResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const non200: string[] = [];
  const latencies: number[] = [];
  const stages: Record<string, number> = {};
  let partial = 0;
  let next = 0;
  const t0 = performance.now();
  try {
    await Promise.all(
      Array.from({ length: Math.max(1, concurrency) }, async () => {
        while (next < requests.length) {
          const r = requests[next++];
          const t = performance.now();
          const a = await send(agent, base, r, replace);
          latencies.push(performance.now() - t);
          for (const [k, v] of Object.entries(parseServerTiming(a.headers["server-timing"] as string | undefined))) stages[k] = (stages[k] ?? 0) + v;
          // A 200 with a protobuf body carries partial_success: spans that did not become turns.
          if (a.status !== 200) non200.push(`${a.status} ${a.body.toString().slice(0, 200)}`);
          else if (a.body.length) partial++;
        }
      }),
    );
  } finally {
    agent.destroy();
  }
  return { seconds: (performance.now() - t0) / 1000, answered: latencies.length, non200, partial, latencies, stages };
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] : NaN;
};

/** GET /ready every `everyMs` until stopped: latencies (ms) and errors. */
export function readyProbe(base: string, everyMs = 50) {
  const ready: number[] = [];
  let errors = 0;
  let probing = true;
  const done = (async () => {
    while (probing) {
      const t = performance.now();
      try {
        const r = await fetch(`${base}/api/v1/ready`);
        await r.arrayBuffer();
        if (r.status !== 200) errors++;
      } catch {
        errors++;
      }
      ready.push(performance.now() - t);
      await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  return {
    async stop() {
      probing = false;
      await done;
      return { count: ready.length, errors, p50: pct(ready, 50), p99: pct(ready, 99), max: ready.length ? Math.max(...ready) : NaN };
    },
  };
}
