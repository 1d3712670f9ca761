import { spawn, type ChildProcess } from "node:child_process";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient } from "../helpers/api-client";
import { LOADED_MACHINE_TIMEOUT_MS } from "../helpers/loaded-machine";
import { startOpenAiStub, type OpenAiStub } from "../helpers/openai-stub";
import { sharedProject, type SharedProject } from "../helpers/shared-app";
import { DATABASE_KINDS } from "../helpers/test-database";

// The README's setup recipe run as written (issue 35, item 7): a plain Node process
// (tests/helpers/sdk-node-app.cjs) starts the real NodeSDK (@opentelemetry/sdk-node,
// devDependency) with the contrib OpenAI instrumentation, configured only by the README's
// environment variables (endpoint, headers, protocol, timeout, service name, content capture), and makes two calls of one conversation to a local model stub.
// NodeSDK's defaults send traces, logs (the messages, as GenAI events) and metrics; all
// three must be answered 200 by the started server, the process must log no export error
// (only Memscope's partial-success warnings: metrics not kept, spans waiting for their events),
// and the conversation must be captured: one conversation of two turns whose captured
// inputs are what the model received. Between the process and the server a pass-through
// recorder notes each request's path and answer (the endpoint variable names it instead of
// the server; it changes nothing). OTEL_LOG_LEVEL=info makes the SDK print export failures
// (it prints nothing by default), so a failure cannot pass unseen.

type Seen = { path: string; status: number; type: string };

/** Forwards every request to `target` unchanged and notes the path and the answer. */
async function recorder(target: string) {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      // Hop-by-hop headers stay on this hop (fetch refuses them); the body is forwarded whole.
      const hop = new Set(["host", "content-length", "connection", "keep-alive", "transfer-encoding", "upgrade", "expect"]);
      const headers = Object.fromEntries(Object.entries(req.headers).filter(([k, v]) => typeof v === "string" && !hop.has(k))) as Record<string, string>;
      try {
        const r = await fetch(`${target}${req.url}`, { method: req.method, headers, body: Buffer.concat(chunks) });
        const body = Buffer.from(await r.arrayBuffer());
        seen.push({ path: req.url ?? "", status: r.status, type: r.headers.get("content-type") ?? "" });
        res.writeHead(r.status, { "content-type": r.headers.get("content-type") ?? "application/octet-stream" });
        res.end(body);
      } catch (e) {
        // Not retryable for an exporter (400), and recorded: the test fails on it.
        seen.push({ path: req.url ?? "", status: -1, type: String(e) });
        res.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, stop: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** Runs the recipe's process with exactly these variables (and PATH, HOME); its output and exit code. */
function runRecipe(env: Record<string, string>, questions: [string, string]) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child: ChildProcess = spawn(process.execPath, [path.join(__dirname, "../helpers/sdk-node-app.cjs"), ...questions], {
      cwd: path.join(__dirname, "../.."),
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env } as unknown as NodeJS.ProcessEnv,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout!.on("data", (d: Buffer) => (stdout += d));
    child.stderr!.on("data", (d: Buffer) => (stderr += d));
    child.on("close", (code: number | null) => resolve({ code, stdout, stderr }));
  });
}

describe.each(DATABASE_KINDS)("the README's NodeSDK recipe on %s", (kind) => {
  let server: SharedProject;
  let stub: OpenAiStub;
  beforeAll(async () => {
    server = await sharedProject(kind, "otel-sdk-node");
    stub = await startOpenAiStub({ chat: (body) => `re: ${body.messages.at(-1).content}` });
  }, 240_000);
  afterAll(async () => {
    await stub?.stop();
    await server?.stop();
  });

  for (const protocol of ["http/protobuf", "http/json"]) {
    it(`configured only by the environment (${protocol}): traces, logs and metrics accepted, no export error, the conversation captured`, { timeout: LOADED_MACHINE_TIMEOUT_MS }, async () => {
      const project = await server.owner.post("/projects", { name: `sdk-node ${protocol}` });
      const key = await server.owner.key(`sdk-node ${protocol}`, ["read", "write"], project.id);
      const api = apiClient(server.url, { authorization: `Bearer ${key}` });
      const proxy = await recorder(server.url);
      const service = `sdk-node-${protocol.replace("/", "-")}`;
      const before = stub.requests.length;
      try {
        const run = await runRecipe(
          {
            // The README's variables, as written there (the endpoint: this test's recorder in front of the server).
            OTEL_EXPORTER_OTLP_ENDPOINT: `${proxy.url}/api`,
            OTEL_EXPORTER_OTLP_HEADERS: `Authorization=Bearer%20${key}`,
            OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
            OTEL_EXPORTER_OTLP_TIMEOUT: "30000",
            OTEL_SERVICE_NAME: service,
            OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: "true",
            OPENAI_BASE_URL: `${stub.url}/v1`,
            OPENAI_API_KEY: "test",
            OTEL_LOG_LEVEL: "info",
          },
          ["What is OTLP?", "And a span?"],
        );
        // The SDK's own log lines (OTEL_LOG_LEVEL) go to stdout too: the recipe's "done" is the last line.
        expect({ code: run.code, last: run.stdout.trim().split("\n").at(-1) }, `${run.stdout}\n${run.stderr}`).toEqual({ code: 0, last: "done" });
        // No export error (the SDK logs "Export failed ...", "... export failed", timeouts at info and above). The
        // partial successes it logs as warnings are Memscope's by design: metrics are not kept (every data point
        // counted), and a contrib span waits for its log events; neither rejects a span or a log record.
        const lines = `${run.stdout}\n${run.stderr}`.split("\n").filter((l) => l.trim());
        const partial = lines.filter((l) => l.startsWith("Received Partial Success response:"));
        for (const l of partial) {
          expect(l).toMatch(/Memscope keeps no metrics|kept for their GenAI log events/);
          expect(l).not.toMatch(/"rejected(Spans|LogRecords)":"?[1-9]/);
        }
        expect(lines.filter((l) => !partial.includes(l)).join("\n")).not.toMatch(/fail|error|timed out/i);

        const byPath = (p: string) => proxy.seen.filter((s) => s.path === `/api/v1/${p}`);
        for (const signal of ["traces", "logs", "metrics"]) {
          expect(byPath(signal).length, `${signal}: ${JSON.stringify(proxy.seen)}`).toBeGreaterThan(0);
          expect(byPath(signal).map((s) => s.status)).toEqual(byPath(signal).map(() => 200));
        }
        expect(proxy.seen.map((s) => s.path).sort()).toEqual(proxy.seen.map((s) => s.path).filter((p) => /^\/api\/v1\/(traces|logs|metrics)$/.test(p)).sort());

        // One conversation (the second call resent the first's question and answer), two turns.
        const list = (await api.get(`/conversations?app_id=${service}`)).body.data as { id: string; app_id: string; turn_count: number }[];
        expect(list.map((c) => [c.app_id, c.turn_count])).toEqual([[service, 2]]);
        const captures = (await api.get(`/conversations/${list[0].id}/captures`)).body.data as { message_id: string; message_form: string; input_message_count: number }[];
        // The contrib instrumentation sends the system message as an input message's event: 2 and 4 messages.
        expect(captures.map((c) => [c.message_form, c.input_message_count])).toEqual([
          ["logs", 2],
          ["logs", 4],
        ]);
        // What each call sent the model, as captured.
        const sent = stub.requests.slice(before).filter((r) => r.path === "/v1/chat/completions").map((r) => r.body.messages as { role: string; content: string }[]);
        expect(sent).toHaveLength(2);
        for (const [i, c] of captures.entries()) {
          const svm = await api.get(`/conversations/${list[0].id}/captures/${c.message_id}`);
          expect(svm.status).toBe(200);
          const input = svm.body.captured.input_messages as { role: string; parts: { content: string }[] }[];
          expect(input.map((m) => ({ role: m.role, content: m.parts.map((p) => p.content).join("") }))).toEqual(sent[i]);
        }
      } finally {
        await proxy.stop();
      }
    });
  }
});
