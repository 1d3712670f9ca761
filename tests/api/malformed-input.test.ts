import os from "node:os";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAppOn } from "../helpers/test-database";
import type { AppServer } from "../helpers/app-server";

// Property-based: every operation of the live OpenAPI document gets malformed values
// (wrong types, NUL, lone surrogates, huge numbers, deep nesting, too many keys, bad ids and
// forged cursors) in its path, query and body. Never a 5xx, never a hang (30 s), and the
// server still answers afterwards. New routes are found through the document. How long the
// slowest answer took is printed as a figure, not asserted: a time limit in a test measures the
// machine's load (a 2 s limit failed at load 20-37), and speed is for the benchmark scripts.

type Param = { name: string; in: "path" | "query" };
type Operation = { method: string; path: string; parameters: Param[]; bodyProps: string[]; hasBody: boolean };

const RUNS_PER_OPERATION = 12;
/** A request still unanswered after this is a hang: the test fails on it. */
const HANG_MS = 30_000;

const nastyText = fc.oneof(
  fc.constantFrom("\u0000", "a\u0000b", "\ud800", "x\udfffy", "\udc00\ud800", "%00", "%E0%A4%A", "../../etc/passwd", "'; select pg_sleep(5); --", ""),
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.integer({ min: 1000, max: 20_000 }).map((n) => "a".repeat(n)),
  fc.integer({ min: 200, max: 5000 }).map((n) => "ACGT".repeat(n)),
);

const hugeNumber = fc.constantFrom(1e308, -1e308, 2 ** 53 + 1, -(2 ** 63), 1e-320, 0.1 + 0.2, 2147483648);

const deepNest = fc.integer({ min: 65, max: 3000 }).map((depth) => {
  let v: unknown = "leaf";
  for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { k: v };
  return v;
});

const manyKeys = fc.integer({ min: 1001, max: 3000 }).map((n) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i])));

const forgedCursor = fc
  .oneof(fc.jsonValue({ maxDepth: 3 }), fc.constant(["x", "y"]), fc.constant(["conversations", "not a time", "nope"]))
  .map((v) => Buffer.from(JSON.stringify(v)).toString("base64url"));

const nastyValue: fc.Arbitrary<unknown> = fc.oneof(
  nastyText,
  hugeNumber,
  fc.boolean(),
  fc.constant(null),
  fc.array(nastyText, { maxLength: 3 }),
  fc.dictionary(nastyText, nastyText, { maxKeys: 3 }),
  deepNest,
  manyKeys,
  fc.jsonValue({ maxDepth: 4 }),
);

const badId = fc.oneof(
  fc.constantFrom("not-a-uuid", "00000000-0000-0000-0000-00000000000g", "7b0e1f0a-0000-4000-8000-000000000000", "%00", "%ED%A0%80", "a%2Fb"),
  fc.string({ minLength: 1, maxLength: 300 }).map((s) => encodeURIComponent(s)),
);

const queryValue = fc.oneof(nastyText, forgedCursor, hugeNumber.map(String), fc.constantFrom("-5", "0", "NaN", "true", "[]", "{}"));

function operationsOf(doc: { paths: Record<string, Record<string, any>> }): Operation[] {
  const ops: Operation[] = [];
  for (const [path, byMethod] of Object.entries(doc.paths)) {
    // Not the session routes (served under their own `servers`, /api/auth): a random valid
    // body to POST /auth/first-admin would end the open mode the rest of this run relies on.
    // They share withApi's input guard, fuzzed here through every /api/v1 route.
    if (byMethod.servers) continue;
    for (const [method, op] of Object.entries(byMethod)) {
      const body = op.requestBody?.content?.["application/json"]?.schema;
      ops.push({
        method: method.toUpperCase(),
        path,
        parameters: (op.parameters ?? []) as Param[],
        bodyProps: Object.keys(body?.properties ?? {}),
        hasBody: !!body,
      });
    }
  }
  return ops;
}

function requestArb(op: Operation) {
  const pathParams = op.parameters.filter((p) => p.in === "path");
  const queryParams = op.parameters.filter((p) => p.in === "query").map((p) => p.name);
  return fc.record({
    path: fc.tuple(...pathParams.map(() => badId)),
    query: fc.array(fc.tuple(fc.constantFrom("cursor", "limit", "\u0000", ...queryParams), queryValue), { maxLength: 3 }),
    body: op.hasBody
      ? fc.oneof(
          nastyValue,
          fc.array(fc.tuple(fc.constantFrom("__proto__", "constructor", ...(op.bodyProps.length ? op.bodyProps : ["x"])), nastyValue), { minLength: 1, maxLength: 3 })
            .map((pairs) => {
              const o: Record<string, unknown> = {};
              for (const [k, v] of pairs) Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
              return o;
            }),
        )
      : fc.constant(undefined),
  });
}

async function rawRequest(base: string, method: string, path: string): Promise<{ status: number; body: string }> {
  const { request } = await import("node:http");
  return new Promise((resolve, reject) => {
    const req = request(`${base}${path}`, { method }, (res) => {
      let body = "";
      res.on("data", (d) => (body += d));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

/** `{error: {code, message, details: [...]}}` as JSON. */
function isErrorShape(text: string): boolean {
  try {
    const j = JSON.parse(text);
    return typeof j?.error?.code === "string" && typeof j.error.message === "string" && Array.isArray(j.error.details);
  } catch {
    return false;
  }
}

/** What made a property run fail: the thrown error's message and its cause (fetch puts the socket error there). */
function describeFailure(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  const cause = e.cause instanceof Error ? ` (${e.cause.message})` : "";
  return `${e.name}: ${e.message}${cause}`;
}

/**
 * Percent-encoding that also sends lone surrogates (as the bytes of their WTF-8 form, %ED%A0%80
 * for U+D800: what a broken client sends), where encodeURIComponent throws URIError.
 */
function encodeLoose(s: string): string {
  let out = "";
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (c < 0xd800 || c > 0xdfff) out += encodeURIComponent(ch);
    else out += [0xe0 | (c >> 12), 0x80 | ((c >> 6) & 0x3f), 0x80 | (c & 0x3f)].map((b) => `%${b.toString(16).toUpperCase()}`).join("");
  }
  return out;
}

function buildUrl(base: string, op: Operation, path: string[], query: [string, string][]) {
  let i = 0;
  const p = op.path.replace(/\{\w+\}/g, () => path[i++]);
  const qs = query.map(([k, v]) => `${encodeLoose(k)}=${encodeLoose(v)}`).join("&");
  return `${base}/api/v1${p}${qs ? `?${qs}` : ""}`;
}

describe("malformed input on every operation (property-based)", () => {
  let server: AppServer;
  let ops: Operation[] = [];

  beforeAll(async () => {
    // Random answers are checked against the contracts, but never counted as coverage
    // (scripts/check-status-coverage.ts reads "<log>.fuzz" for undeclared statuses only).
    const log = process.env.MEMSCOPE_STATUS_LOG;
    server = await startAppOn("embedded", log ? { env: { MEMSCOPE_STATUS_LOG: `${log}.fuzz` } } : {});
    const doc = await (await fetch(`${server.url}/api/v1/openapi.json`)).json();
    ops = operationsOf(doc);
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("finds every operation in the live document", () => {
    expect(ops.length).toBeGreaterThan(50);
  });

  it("never answers 5xx, never hangs, always with the error shape", async () => {
    // Every problem inside the property throws, so fast-check reports it: a 5xx, a 4xx that is
    // not the error shape (or not JSON), and a request that fails or hangs (HANG_MS). Each
    // operation is checked in full and its failure listed; the test fails on any.
    const failures: string[] = [];
    let slowest = { ms: 0, where: "" };
    for (const op of ops) {
      const run = await fc.check(
        fc.asyncProperty(requestArb(op), async ({ path, query, body }) => {
          const url = buildUrl(server.url, op, path, query);
          const started = performance.now();
          const res = await fetch(url, {
            method: op.method,
            headers: { "content-type": "application/json" },
            body: body === undefined ? undefined : JSON.stringify(body),
            signal: AbortSignal.timeout(HANG_MS),
          });
          const text = await res.text();
          const ms = performance.now() - started;
          const where = `${res.status} in ${Math.round(ms)} ms: ${url.slice(0, 200)} ${text.slice(0, 200)}`;
          if (res.status >= 500) throw new Error(`server error: ${where}`);
          if (ms > slowest.ms) slowest = { ms, where: `${op.method} ${url.slice(0, 120)}` };
          if (res.status >= 400 && !isErrorShape(text)) throw new Error(`no error shape: ${where}`);
        }),
        { numRuns: RUNS_PER_OPERATION, endOnFailure: true },
      );
      if (run.failed) failures.push(`${op.method} ${op.path}: ${describeFailure(run.errorInstance)}`);
    }
    console.log(`[malformed-input] slowest of ${ops.length * RUNS_PER_OPERATION} answers: ${Math.round(slowest.ms)} ms (${slowest.where}; load ${os.loadavg()[0].toFixed(1)})`);
    expect(failures).toEqual([]);
    expect(server.logs()).not.toMatch(/\[api\] .* (TypeError|RangeError|error:)/);
  }, 600_000);

  it("answers what Next.js alone would 500 on: TRACE, bad percent-encoding (pages too), undeclared methods, oversized headers", async () => {
    for (const path of ["/api/v1/ready", "/memories"]) {
      const trace = await fetch(`${server.url}${path}`, { method: "TRACE" }).catch(() => null);
      // fetch refuses to send TRACE itself; speak HTTP directly.
      expect(trace).toBeNull();
      const raw = await rawRequest(server.url, "TRACE", path);
      expect(raw.status, path).toBe(405);
      expect(JSON.parse(raw.body).error.code).toBe("method_not_allowed");
    }
    for (const path of ["/api/v1/memories/%E0%A4%A", "/memories/%E0%A4%A", "/conversations/%ZZ"]) {
      const r = await fetch(`${server.url}${path}`);
      expect(r.status, path).toBe(400);
      expect((await r.json()).error.code).toBe("invalid_path");
    }
    const put = await fetch(`${server.url}/api/v1/ready`, { method: "PUT" });
    expect(put.status).toBe(405);
    expect(put.headers.get("allow")).toBe("GET, HEAD, OPTIONS");
    // Over Node's 16 KiB of request line and headers: refused by its parser, in the error shape.
    const long = await fetch(`${server.url}/api/v1/conversations?cursor=${"a".repeat(20_000)}`);
    expect(long.status).toBe(431);
    expect(await long.json()).toMatchObject({ error: { code: "headers_too_large", details: [{ field: "headers" }] } });
    const unknown = await fetch(`${server.url}/api/v1/no/such/thing`);
    expect(unknown.status).toBe(404);
    expect((await unknown.json()).error.code).toBe("not_found");
  });

  it("keeps idle connections 65 s (a pooled client's next request is not reset by a 5 s close)", async () => {
    const r = await fetch(`${server.url}/api/v1/ready`);
    expect(r.status).toBe(200);
    expect(r.headers.get("keep-alive")).toBe("timeout=65");
  });

  it("still answers afterwards", async () => {
    const r = await fetch(`${server.url}/api/v1/ready`, { signal: AbortSignal.timeout(HANG_MS) });
    expect(r.status).toBe(200);
  });
});
