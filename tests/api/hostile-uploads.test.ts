import fs from "node:fs";
import os from "node:os";
import { randomUUID } from "node:crypto";
import { strToU8, zipSync } from "fflate";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiClient } from "../helpers/api-client";
import { sharedProject } from "../helpers/shared-app";
import { agentscopeZip, attacks, chatgptChain, langgraphDump, mem0Export, memoryDirZip, spacesExport, type Attack, type HeavyImport } from "../helpers/hostile-files";
import { chatBatch, emptyValuesSpan, manyKeysSpan } from "../helpers/otlp-protobuf";
import { DATABASE_KINDS, itOnOneKind, ONE_KIND, startAppOn } from "../helpers/test-database";

// Issue 37: hostile import files (and OTLP bodies), each built here, small as sent and huge
// once unpacked, read or parsed. On both databases, one server each shared by the attacks: each
// is refused with the 4xx naming its limit (or field), nothing is written (no job, no
// conversation, no memory), the server keeps answering /ready within a second (scaled by the
// machine's load: readyBound) while it reads the file, and its resident memory (VmRSS of the
// server's process) grows by less than 300 MB over its value before the attack. The limits are
// the defaults of lib/imports/upload-limits.ts, except the streamed export's unpacked bound,
// lowered here so that its attack stays a few seconds long.
//
// Which database kind each test runs on (the rule in tests/helpers/test-database.ts): a refusal
// is decided while the file is read or parsed, before an import job or any row exists, and the
// parse runs in the upload worker whatever the database: those run on ONE_KIND (the embedded
// one). So do the big files parsed then cancelled (LangGraph, Mem0, memory folder, AgentScope):
// what they prove is the worker's stall behaviour, and it matters most where the database runs in
// the server's own event loop (PGlite), which /ready shares. What writes (the OTLP batches
// stored, the 60 MB record's paged statements, Claude's memories, a record failing beside one
// imported, a cancel between transactions) runs on both kinds: bulk statements and transactions.
// On ONE_KIND the file has a server of its own (the attacks count what the whole database holds,
// and the streamed export's bound is lowered); on the other kinds, where only writes are tested,
// a project of its own on the worker's shared server (a server start and a database less), and
// the attacks are not built there at all (1.8 CPU-seconds of zips, SQLite files and JSON).

const MB = 1024 * 1024;
const UNPACKED = 100 * MB;
const RSS_GROWTH = 300 * MB;

/**
 * The slowest /ready answer allowed while an attack runs: 1 s on a machine with a core to spare,
 * scaled by the load per core past that (on this shared 2-core machine at load 18-28 a plain
 * import's /ready already takes over a second). The figure itself is the benchmark's
 * (bench/hostile-files.ts, docs/benchmarks.md section 22); this bound still catches what the
 * issue saw: stalls of 10-27 s and a server that never answered again.
 */
const readyBound = () => 1000 * Math.max(1, os.loadavg()[0] / os.availableParallelism());

/** The server process's resident memory, in bytes (Linux: /proc/<pid>/status). */
function rss(pid: number): number {
  const m = /^VmRSS:\s+(\d+) kB$/m.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
  if (!m) throw new Error(`no VmRSS for ${pid}`);
  return Number(m[1]) * 1024;
}

/** /ready polled every 100 ms while `work` runs, and the server's RSS read as often: the slowest answer (ms) and the RSS growth (bytes). */
async function watched<T>(url: string, pid: number, work: () => Promise<T>): Promise<{ result: T; slowest: number; probes: number; growth: number }> {
  let stop = false;
  let slowest = 0;
  let probes = 0;
  const before = rss(pid);
  let peak = before;
  const poll = (async () => {
    while (!stop) {
      const t = performance.now();
      const r = await fetch(`${url}/api/v1/ready`, { signal: AbortSignal.timeout(10_000) }).catch(() => null);
      slowest = Math.max(slowest, r?.ok ? performance.now() - t : 10_000);
      probes++;
      peak = Math.max(peak, rss(pid));
      await new Promise((res) => setTimeout(res, 100));
    }
  })();
  try {
    const result = await work();
    peak = Math.max(peak, rss(pid));
    return { result, slowest, probes, growth: peak - before };
  } finally {
    stop = true;
    await poll;
  }
}

describe.each(DATABASE_KINDS)("hostile upload files on %s", (kind) => {
  const oneKind = itOnOneKind(kind);
  /** The server's url and process (its /ready and RSS are watched), and the headers of the project the tests write to. */
  let server: { url: string; pid: number; headers: Record<string, string>; stop(): Promise<void> };
  let api: ReturnType<typeof apiClient>;
  let list: Attack[] = [];

  beforeAll(async () => {
    if (ONE_KIND.includes(kind)) {
      const [own, built] = await Promise.all([startAppOn(kind, { env: { MEMSCOPE_IMPORT_MAX_UNPACKED_BYTES: String(UNPACKED) } }), attacks()]);
      server = { url: own.url, pid: own.pid!, headers: {}, stop: () => own.stop() };
      list = built;
    } else {
      const p = await sharedProject(kind, "hostile-uploads");
      server = { url: p.url, pid: p.pid, headers: p.headers, stop: p.stop };
    }
    api = apiClient(server.url, server.headers);
  }, 240_000);
  afterAll(() => server?.stop());

  const upload = async (a: Pick<Attack, "body" | "query">) => {
    const r = await fetch(`${server.url}/api/v1/imports/upload?${new URLSearchParams(a.query)}`, { method: "POST", headers: { ...server.headers, "content-type": "application/octet-stream" }, body: Buffer.from(a.body) });
    return { status: r.status, body: await r.json() };
  };

  /** What the project holds: import jobs, conversations, users with memories (each a first page: the attacks run on an empty database). */
  const written = async () => ({
    jobs: (await api.get("/imports")).body.data.length as number,
    conversations: (await api.get("/conversations?limit=100")).body.data.length as number,
    memoryUsers: (await api.get("/memory-users")).body.data.length as number,
  });

  /** `send` answers `status` with `code` naming `field`, /ready within readyBound and RSS growth under 300 MB throughout, nothing written. */
  async function refusedBy(name: string, send: () => Promise<{ status: number; body: any }>, status: number, code: string, field: string | RegExp) {
    const before = await written();
    const { result: r, slowest, probes, growth } = await watched(server.url, server.pid, send);
    expect(r.status, `${name}: ${JSON.stringify(r.body)}`).toBe(status);
    expect(r.body.error.code).toBe(code);
    expect(r.body.error.details[0].field).toMatch(field);
    expect(probes, name).toBeGreaterThan(0);
    expect(slowest, `${name}: /ready took ${Math.round(slowest)} ms (load ${os.loadavg()[0].toFixed(1)})`).toBeLessThan(readyBound());
    expect(growth, `${name}: RSS grew ${Math.round(growth / MB)} MB`).toBeLessThan(RSS_GROWTH);
    expect(await written(), `${name}: nothing was written`).toEqual(before);
    return r.body;
  }

  const refused = (a: Attack) => refusedBy(a.name, () => upload(a), a.status, a.code, a.field);

  const names = [
    "sqlite: generated id column (100 MB a row)",
    "sqlite: no id column",
    "sqlite: a column default that is an expression",
    "memory-dir zip: one 200 MB entry",
    "letta zip: a 400 MB .af of {}",
    "agentscope zip: 3 x 50 MB entries",
    "agentscope zip: 10 001 sessions",
    "zip: compression method 99",
    "memory-dir zip: 1 M list items",
    "chatgpt zip: one 100 MB conversation",
    "chatgpt json: a conversation of 100 000 nodes",
    "claude json: nesting 10 000 deep",
    "claude zip: a 100 MB memories.json",
    "letta zip: a 40 MB .af of empty arrays",
    "dify-api json: 30 MB of empty arrays",
    "letta json: nested 300 deep",
  ];
  oneKind.each(names)("%s: refused naming its limit, nothing written, /ready answering throughout", async (name) => {
    const a = list.find((x) => x.name === name)!;
    expect(a, name).toBeTruthy();
    const body = await refused(a);
    if (name === "zip: compression method 99") expect(body.error.details[0].message).toMatch(/compression method 99/);
    if (a.code === "import_limit_exceeded") expect(body.error.message).toContain(String(a.field));
  });

  oneKind("a streamed export unpacking past its bound (150 MB of spaces in a zip) is a 413 naming unpacked_bytes", async () => {
    await refused(spacesExport(150 * MB));
  });

  const otlp = (body: Uint8Array | string) =>
    fetch(`${server.url}/api/v1/traces`, { method: "POST", headers: { ...server.headers, "content-type": "application/json" }, body: typeof body === "string" ? body : Buffer.from(body) }).then(async (r) => ({ status: r.status, body: await r.json() }));

  oneKind("an OTLP/JSON body of 20 MB of empty arrays (parsed in the worker: ~7 M arrays) is a 413 naming the body, nothing stored", async () => {
    const body = strToU8(`{"resourceSpans":[${"[], ".repeat(5_000_000)}[]]}`);
    expect(body.length).toBeGreaterThan(16 * MB); // the worker's side of OTLP_JSON_WORKER_FROM_BYTES
    const answer = await refusedBy("otlp: 20 MB of empty arrays", () => otlp(body), 413, "payload_too_large", "body");
    expect(answer.error.details[0].message).toMatch(/parsing would need about \d+ MB/);
  });

  it("an OTLP/JSON batch of 17 MB (parsed in the worker, handed back in slices) is stored as the same batch parsed inline would be", async () => {
    const kv = (key: string, v: string) => ({ key, value: { stringValue: v } });
    const msg = (role: string, content: string) => JSON.stringify([{ role, parts: [{ type: "text", content }] }]);
    const filler = "lorem ipsum dolor sit amet ".repeat(1200); // ~32 KB a span
    const spans = Array.from({ length: 560 }, (_, i) => ({
      traceId: "5b8efff798038103d269b633813fc60c",
      spanId: (i + 1).toString(16).padStart(16, "0"),
      name: "chat",
      startTimeUnixNano: String(1_772_359_200_000_000_000n + BigInt(i) * 1_000_000_000n),
      endTimeUnixNano: String(1_772_359_200_500_000_000n + BigInt(i) * 1_000_000_000n),
      attributes: [kv("gen_ai.operation.name", "chat"), kv("gen_ai.conversation.id", "worker-batch"), kv("gen_ai.system_instructions", JSON.stringify([{ type: "text", content: filler }])), kv("gen_ai.input.messages", msg("user", `question ${i}`)), kv("gen_ai.output.messages", msg("assistant", `answer ${i}`))],
    }));
    const body = JSON.stringify({ resourceSpans: [{ resource: { attributes: [kv("service.name", "worker-bot")] }, scopeSpans: [{ scope: { name: "x" }, spans }] }] });
    expect(body.length).toBeGreaterThan(16 * MB);
    const { result: r, slowest } = await watched(server.url, server.pid, () => otlp(body));
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(Number(r.body.partialSuccess?.rejectedSpans ?? 0), JSON.stringify(r.body.partialSuccess)).toBe(0);
    expect(slowest, `/ready took ${Math.round(slowest)} ms (load ${os.loadavg()[0].toFixed(1)})`).toBeLessThan(readyBound());
    const list = (await api.get("/conversations?limit=100")).body.data as { name: string; turn_count: number }[];
    expect(list.find((c) => c.name === "worker-batch")?.turn_count).toBe(560);
  });

  /** Errors come back as JSON; a success as an ExportTraceServiceResponse (empty: every span accepted), its length given. */
  const otlpProto = (body: Uint8Array) =>
    fetch(`${server.url}/api/v1/traces`, { method: "POST", headers: { ...server.headers, "content-type": "application/x-protobuf" }, body: Buffer.from(body) }).then(async (r) =>
      (r.headers.get("content-type") ?? "").includes("json") ? { status: r.status, body: await r.json() } : { status: r.status, body: { responseBytes: (await r.arrayBuffer()).byteLength } },
    );

  oneKind("an OTLP protobuf body of 8 M empty values in one span (15 MB, decoded in the worker) is a 413 naming the messages limit, nothing stored", async () => {
    const answer = await refusedBy("otlp protobuf: 8 M empty values", () => otlpProto(emptyValuesSpan(8_000_000)), 413, "payload_too_large", "body");
    expect(answer.error.details[0].message).toMatch(/more than 2000000 protobuf messages .*\(limit messages\)/);
  });

  oneKind("an OTLP protobuf body of 100 000 kvlist keys in one span (0.9 MB) is a 413 naming the values-per-span limit and the span", async () => {
    const answer = await refusedBy("otlp protobuf: 100 000 keys", () => otlpProto(manyKeysSpan(100_000)), 413, "payload_too_large", "resourceSpans[0].scopeSpans[0].spans[0]");
    expect(answer.error.details[0].message).toMatch(/more than 50000 values in one span \(limit item_weight\)/);
  });

  it("an OTLP protobuf batch of 17 MB (decoded in the worker, handed back in groups) is stored as the same batch decoded inline would be", async () => {
    const batch = (conversation: string, traceId: string, from: number, spans: number) => chatBatch({ spans, from, promptChars: 64_000, conversation, traceId, service: "proto-worker-bot" });
    const body = batch("proto-worker-batch", "6c9f0000000000000000000000000001", 0, 280);
    expect(body.length).toBeGreaterThan(16 * MB); // the worker's side of OTLP_PROTO_WORKER_FROM_BYTES
    const { result: r, slowest } = await watched(server.url, server.pid, () => otlpProto(body));
    expect(r, JSON.stringify(r.body)).toEqual({ status: 200, body: { responseBytes: 0 } }); // no partial_success: every span accepted
    expect(slowest, `/ready took ${Math.round(slowest)} ms (load ${os.loadavg()[0].toFixed(1)})`).toBeLessThan(readyBound());
    // The same spans (another trace and conversation) in two requests of 140, 9 MB each: decoded inline.
    for (const from of [0, 140]) expect(await otlpProto(batch("proto-inline-batch", "6c9f0000000000000000000000000002", from, 140))).toEqual({ status: 200, body: { responseBytes: 0 } });
    const stored = async (name: string) => {
      const conv = ((await api.get("/conversations?limit=100")).body.data as { id: string; name: string; turn_count: number }[]).find((c) => c.name === name)!;
      const msgs = (await api.get(`/conversations/${conv.id}/messages?limit=100`)).body.data as { query: string; answer: string; created_at: string }[];
      const captures = (await api.get(`/conversations/${conv.id}/captures?limit=100`)).body.data as { input_message_count: number; request_model: string | null }[];
      return { turns: conv.turn_count, messages: msgs.map((m) => [m.query, m.answer, m.created_at]), captures: captures.map((c) => [c.input_message_count, c.request_model]) };
    };
    const viaWorker = await stored("proto-worker-batch");
    expect(viaWorker.turns).toBe(280);
    expect(viaWorker.messages.length).toBeGreaterThan(0);
    expect(viaWorker).toEqual(await stored("proto-inline-batch"));
  });

  it("a ChatGPT conversation of 12 000 nodes (under values_per_record) fails alone, naming the nodes limit; the others are imported", async () => {
    const chain = JSON.parse(Buffer.from(chatgptChain(12_000)).toString("utf8"));
    const ok = { id: "hostile-ok", title: "fine", create_time: 1700000000, mapping: { u: { id: "u", parent: null, children: [], message: { id: "u", author: { role: "user" }, content: { content_type: "text", parts: ["hello"] } } } }, current_node: "u" };
    const body = strToU8(JSON.stringify([chain[0], ok]));
    const { result: job, slowest } = await watched(server.url, server.pid, async () => {
      const r = await upload({ body, query: { format: "chatgpt" } });
      expect(r.status, JSON.stringify(r.body)).toBe(202);
      const deadline = Date.now() + 120_000;
      for (;;) {
        const j = await api.get(`/imports/${r.body.id}`);
        if (j.body.status !== "running") return j.body;
        if (Date.now() > deadline) throw new Error("the import did not end");
        await new Promise((res) => setTimeout(res, 200));
      }
    });
    expect(job.status).toBe("done");
    expect(job.counts).toMatchObject({ conversations: 1, failed: 1 });
    expect(job.problems[0]).toMatchObject({ record: "conversations[0]", field: "mapping", message: expect.stringContaining("nodes_per_conversation") });
    expect(slowest, `/ready took ${Math.round(slowest)} ms (load ${os.loadavg()[0].toFixed(1)})`).toBeLessThan(readyBound());
  });

  /** Uploads `body` and waits for its job to end, /ready and RSS watched throughout. */
  const imported = (body: Uint8Array, query: Record<string, string>) =>
    watched(server.url, server.pid, async () => {
      const r = await upload({ body, query });
      expect(r.status, JSON.stringify(r.body)).toBe(202);
      const deadline = Date.now() + 300_000;
      for (;;) {
        const j = await api.get(`/imports/${r.body.id}`);
        if (j.body.status !== "running") return j.body;
        if (Date.now() > deadline) throw new Error("the import did not end");
        await new Promise((res) => setTimeout(res, 250));
      }
    });

  // Valid files read whole whose parse used to run on the request thread (a 60 MB LangGraph dump
  // held it 13.6 s at load 14, 100 000 Mem0 memories 10 s at load 18): parsed in the upload parse
  // worker now (lib/imports/parse-upload-off-thread.ts), their records handed back in groups.
  const heavy: [string, () => HeavyImport][] = [
    ["a LangGraph dump of 100 000 rows (60 MB)", () => langgraphDump(100_000)],
    ["a Mem0 export of 100 000 memories (64 MB)", () => mem0Export(100_000)],
    ["a memory-folder zip of 10 files of 9 900 list items (52 MB unpacked)", () => memoryDirZip(10, 9_900)],
    ["an AgentScope zip of 100 sessions of 990 messages (64 MB unpacked)", () => agentscopeZip(100, 990)],
  ];
  oneKind.each(heavy)("%s is parsed off the request thread: every record counted, /ready answering throughout", async (_name, make) => {
    const file = make();
    // The parse is done before the 202 (its total is every record); the dry run's own pace is not what this checks: cancelled.
    const { result: r, slowest } = await watched(server.url, server.pid, () => upload({ body: file.body, query: file.query }));
    expect(r.status, JSON.stringify(r.body).slice(0, 2000)).toBe(202);
    expect(r.body.total).toBe(file.counts.memories + file.counts.conversations);
    expect([200, 409]).toContain((await api.post(`/imports/${r.body.id}/cancel`)).status);
    expect(slowest, `/ready took ${Math.round(slowest)} ms (load ${os.loadavg()[0].toFixed(1)})`).toBeLessThan(readyBound());
  }, 300_000);

  it("a 60 MB single-conversation ChatGPT record is parsed in the worker and imported whole, /ready answering throughout", async () => {
    // 600 nodes of 100 KB: 300 turns, one record of ~60 MB (under record_bytes, over RECORD_OFF_THREAD_FROM).
    const text = (i: number) => `${i} ${"lorem ipsum dolor sit amet ".repeat(3800)}`;
    const mapping: Record<string, unknown> = { root: { id: "root", message: null, parent: null, children: ["u0"] } };
    for (let t = 0; t < 300; t++) {
      mapping[`u${t}`] = { id: `u${t}`, parent: t ? `a${t - 1}` : "root", children: [`a${t}`], message: { id: `u${t}`, author: { role: "user" }, create_time: 1700000000 + 2 * t, content: { content_type: "text", parts: [text(2 * t)] } } };
      mapping[`a${t}`] = { id: `a${t}`, parent: `u${t}`, children: t < 299 ? [`u${t + 1}`] : [], message: { id: `a${t}`, author: { role: "assistant" }, create_time: 1700000001 + 2 * t, recipient: "all", content: { content_type: "text", parts: [text(2 * t + 1)] } } };
    }
    // Ids of this attempt: a retry imports the record again instead of finding it imported.
    const app = `huge-record-${randomUUID().slice(0, 8)}`;
    const body = strToU8(JSON.stringify([{ id: app, title: "one huge conversation", create_time: 1700000000, mapping, current_node: "a299" }]));
    expect(body.length).toBeGreaterThan(55 * MB);
    const { result: job, slowest, growth } = await imported(body, { format: "chatgpt", app_id: app });
    expect(job.status, JSON.stringify(job)).toBe("done");
    expect(job.counts).toMatchObject({ conversations: 1, failed: 0 });
    expect(slowest, `/ready took ${Math.round(slowest)} ms (load ${os.loadavg()[0].toFixed(1)})`).toBeLessThan(readyBound());
    expect(growth, `RSS grew ${Math.round(growth / MB)} MB`).toBeLessThan(RSS_GROWTH * 2); // the record itself is 60 MB, its text held while written
    const conv = ((await api.get(`/conversations?app_id=${app}&limit=10`)).body.data as { id: string; turn_count: number }[])[0];
    expect(conv.turn_count).toBe(300);
    const msgs: { query: string; answer: string }[] = [];
    for (let cursor = ""; ; ) {
      const page = await api.get(`/conversations/${conv.id}/messages?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
      msgs.push(...page.body.data);
      if (!page.body.next_cursor) break;
      cursor = page.body.next_cursor;
    }
    expect(msgs.length).toBe(300);
    const sorted = msgs.map((m) => [m.query, m.answer]).sort((a, b) => parseInt(a[0]) - parseInt(b[0]));
    expect(sorted[0]).toEqual([text(0), text(1)]);
    expect(sorted[299]).toEqual([text(598), text(599)]);
  }, 300_000);

  it("Claude's memories.json is streamed an element at a time (a 9 MB one parsed in the worker): every memory imported, a bad element a problem of its own", async () => {
    const convs = [{ uuid: "mem-conv", name: "hi", created_at: "2026-01-01T00:00:00Z", updated_at: "2026-01-01T00:00:00Z", chat_messages: [{ uuid: "m1", sender: "human", text: "hi", created_at: "2026-01-01T00:00:00Z" }, { uuid: "m2", sender: "assistant", text: "hello", created_at: "2026-01-01T00:00:01Z" }] }];
    const bullets = (tag: string, n: number, pad: number) => Array.from({ length: n }, (_, i) => `- ${tag} fact ${i} ${"x".repeat(pad)}`).join("\n");
    const memories = [
      { conversations_memory: bullets("small", 3, 10), project_memories: { p1: bullets("project", 2, 10) }, account_uuid: "acct-mem" },
      "not a memory",
      { conversations_memory: bullets("large", 520, 17_000), account_uuid: "acct-mem" }, // ~8.8 MB: over RECORD_OFF_THREAD_FROM (8 MiB)
    ];
    const zip = zipSync({ "conversations.json": strToU8(JSON.stringify(convs)), "memories.json": strToU8(JSON.stringify(memories)), "users.json": strToU8('[{"uuid":"acct-mem"}]') });
    const { result: job, slowest } = await imported(zip, { format: "claude", app_id: "claude-mem" });
    expect(job.status, JSON.stringify(job)).toBe("done");
    expect(job.counts).toMatchObject({ conversations: 1, memories: 3 + 2 + 520 });
    expect(job.problems).toEqual([expect.objectContaining({ record: "memories.json", field: "[1]", message: expect.stringContaining("must be an object") })]);
    expect(slowest, `/ready took ${Math.round(slowest)} ms (load ${os.loadavg()[0].toFixed(1)})`).toBeLessThan(readyBound());
  }, 300_000);

  it("a running import is cancelled between transactions: status cancelled, its counts are what was written; 409 once ended", async () => {
    // 3 000 conversations of 4 turns: long enough to be running when the cancel arrives.
    const convs = Array.from({ length: 3000 }, (_, c) => {
      const mapping: Record<string, unknown> = { root: { id: "root", message: null, parent: null, children: ["u0"] } };
      for (let t = 0; t < 4; t++) {
        mapping[`u${t}`] = { id: `u${t}`, parent: t ? `a${t - 1}` : "root", children: [`a${t}`], message: { id: `u${t}`, author: { role: "user" }, create_time: 1700000000 + t, content: { content_type: "text", parts: [`question ${c}.${t}`] } } };
        mapping[`a${t}`] = { id: `a${t}`, parent: `u${t}`, children: t < 3 ? [`u${t + 1}`] : [], message: { id: `a${t}`, author: { role: "assistant" }, create_time: 1700000001 + t, recipient: "all", content: { content_type: "text", parts: [`answer ${c}.${t}`] } } };
      }
      return { id: `cancel-${c}`, title: `c${c}`, create_time: 1700000000, mapping, current_node: "a3" };
    });
    const r = await upload({ body: strToU8(JSON.stringify(convs)), query: { format: "chatgpt", app_id: "cancel-test" } });
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    const c = await api.post(`/imports/${r.body.id}/cancel`);
    expect(c.status, JSON.stringify(c.body)).toBe(200);
    expect(c.body.status).toBe("cancelled");
    expect(c.body.error).toBeNull();
    expect(c.body.counts.conversations).toBeLessThan(3000);
    // What the job says it wrote is what the database holds.
    let stored = 0;
    for (let cursor: string | null = ""; cursor !== null; ) {
      const page: { status: number; body: { data: unknown[]; next_cursor: string | null } } = await api.get(`/conversations?app_id=cancel-test&limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
      expect(page.status).toBe(200);
      stored += page.body.data.length;
      cursor = page.body.next_cursor;
    }
    expect(stored).toBe(c.body.counts.conversations);
    const again = await api.post(`/imports/${r.body.id}/cancel`);
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe("conflict");
    const missing = await api.post(`/imports/00000000-0000-4000-8000-000000000000/cancel`);
    expect(missing.status).toBe(404);
  });
});
