import { expect } from "vitest";
import { apiClient } from "../helpers/api-client";
import type { AppServer } from "../helpers/app-server";
import { openTestDatabase, type DatabaseKind, type TestDatabase } from "../helpers/test-database";
import { connectPostgres } from "../helpers/real-postgres";

// Shared by the privacy suites: people with a marker string in every kind of field, and a
// snapshot of every row of every table of the database (information_schema, so tables other
// work adds later are covered without a change here).

export type Person = { userId: string; marker: string; conversationId: string; memoryIds: string[] };

/** Writes, through the API, a marker in every kind of field of one user's data. */
export async function makePerson(base: string, userId: string, marker: string): Promise<Person> {
  const api = apiClient(base);
  const ok = (r: { status: number; body: unknown }, what: string) => {
    if (r.status >= 300) throw new Error(`${what}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body as any;
  };
  const conv = ok(await api.post("/conversations", { app_id: "app-1", end_user_id: userId, name: `Chat about ${marker}` }), "conversation");
  const long = `${marker} `.repeat(5) + "words ".repeat(120);
  ok(
    await api.post(`/conversations/${conv.id}/messages/batch`, {
      messages: [
        {
          query: `My phone is in ${marker} notes`,
          answer: `Noted ${marker}.`,
          metadata: { note: `meta ${marker}` },
          files: [{ type: "document", transfer_method: "remote_url", url: `https://files.example/${marker}.pdf` }],
        },
        { query: "Tell me more", answer: long },
        { query: "And then?", answer: "Fine." },
      ],
    }),
    "turns",
  );
  ok(
    await api.post(`/conversations/${conv.id}/nodes/llm-1/turns`, {
      message_id: crypto.randomUUID(),
      user_content: `node says ${marker}`,
      assistant_content: `node answer ${marker}`,
      app_id: "app-1",
    }),
    "node memory",
  );
  const m1 = ok(
    await api.post(`/users/${encodeURIComponent(userId)}/memories`, {
      memory_type: "fact",
      content: `Lives near ${marker} park`,
      structured_data: { place: `${marker} park` },
      source_session_id: conv.id,
    }),
    "memory 1",
  );
  const m2 = ok(
    await api.post(`/users/${encodeURIComponent(userId)}/memories`, { memory_type: "preference", content: `Prefers ${marker} tea over coffee` }),
    "memory 2",
  );
  // A near duplicate kept with a review item (no chat model configured).
  const m3 = ok(
    await api.post(`/users/${encodeURIComponent(userId)}/memories`, {
      memory_type: "preference",
      content: `Prefers ${marker} tea over coffee in the morning`,
      dedupe_threshold: 0.3,
    }),
    "memory 3",
  );
  // History with snapshots of the marker.
  ok(await api.patch(`/memories/${m1.id}`, { content: `Lives next to ${marker} park`, version: m1.version }), "edit");
  ok(await api.post(`/memories/${m1.id}/relations`, { target_id: m2.id, relation_type: "supports", note: `because ${marker}` }), "relation");
  // A retrieval whose query holds the marker.
  ok(await api.post(`/users/${encodeURIComponent(userId)}/memories/search`, { query: `where does ${marker} live`, conversation_id: conv.id }), "search");
  // An offloaded content (the long answer) through /context.
  ok(
    await api.post("/context", {
      user_id: userId,
      conversation_id: conv.id,
      query: `context for ${marker}`,
      strategy: { type: "summary_buffer", msg_threshold: 1, last_keep: 10, offload_tokens: 50 },
    }),
    "context",
  );
  // A chat span captured over OTLP into the user's conversation: the exact prompt (system
  // instructions, input and output messages) is kept beside the turn, its messages in captured_messages.
  ok(
    await captureSpan(base, {
      conversationId: conv.id,
      userId,
      system: `Speak of ${marker} gently`,
      input: [{ role: "user", parts: [{ type: "text", content: `span question ${marker}` }] }],
      output: [{ role: "assistant", parts: [{ type: "text", content: `span answer ${marker}` }], finish_reason: "stop" }],
    }),
    "captured span",
  );
  // The halves of a chat call whose other half has not arrived (otlp_pending): a content-less
  // span naming the user, then one of its log events (the question, no answer yet).
  ok(await pendingHalves(base, { userId, content: `pending question ${marker}` }), "pending halves");
  // An eval case asked for this user, and a run of it (its result keeps the retrieved texts).
  const set = ok(await api.post("/evals/sets", { name: `privacy ${Math.random().toString(36).slice(2)}` }), "eval set");
  ok(await api.post(`/evals/sets/${set.id}/cases`, { cases: [{ user_id: userId, question: `Where is ${marker} park?`, expected: { texts: [marker] } }] }), "eval case");
  ok(await api.post(`/evals/sets/${set.id}/runs`, { config: { k: 3 } }), "eval run");
  return { userId, marker, conversationId: conv.id, memoryIds: [m1.id, m2.id, m3.id] };
}

type SpanMessage = { role: string; parts: { type: string; content: string }[]; finish_reason?: string };

/** Sends one GenAI chat span over OTLP/HTTP JSON (POST /traces), as an instrumented agent would. */
export async function captureSpan(
  base: string,
  span: { conversationId: string; userId: string; system: string; input: SpanMessage[]; output: SpanMessage[]; headers?: Record<string, string> },
) {
  const hex = (n: number) => Array.from({ length: n }, () => Math.floor(Math.random() * 16).toString(16)).join("");
  const attributes = {
    "gen_ai.operation.name": "chat",
    "gen_ai.request.model": "gpt-4o-mini",
    "gen_ai.conversation.id": span.conversationId,
    "user.id": span.userId,
    "gen_ai.system_instructions": JSON.stringify([{ type: "text", content: span.system }]),
    "gen_ai.input.messages": JSON.stringify(span.input),
    "gen_ai.output.messages": JSON.stringify(span.output),
  };
  const start = BigInt(Date.now()) * 1_000_000n;
  const body = {
    resourceSpans: [
      {
        resource: { attributes: [{ key: "service.name", value: { stringValue: "app-1" } }] },
        scopeSpans: [
          {
            scope: { name: "privacy-fixture" },
            spans: [
              {
                traceId: hex(32),
                spanId: hex(16),
                name: "chat gpt-4o-mini",
                startTimeUnixNano: String(start),
                endTimeUnixNano: String(start + 400_000_000n),
                attributes: Object.entries(attributes).map(([key, v]) => ({ key, value: { stringValue: v } })),
              },
            ],
          },
        ],
      },
    ],
  };
  const r = await apiClient(base, span.headers).post("/traces", body);
  // OTLP answers 200 with partialSuccess for spans it refused or ignored: here that is a failure.
  if (r.status === 200 && r.body?.partialSuccess) return { status: 422, body: r.body };
  return r;
}

/**
 * A chat span without content naming the user (POST /traces), then the user message of it as
 * a GenAI log event (POST /logs), the way @opentelemetry/instrumentation-openai sends them:
 * without the answer's event both halves wait in otlp_pending under the span's end user.
 */
export async function pendingHalves(base: string, call: { userId: string; content: string }) {
  const hex = (n: number) => Array.from({ length: n }, () => Math.floor(Math.random() * 16).toString(16)).join("");
  const [traceId, spanId] = [hex(32), hex(16)];
  const start = BigInt(Date.now()) * 1_000_000n;
  const kv = (key: string, v: string) => ({ key, value: { stringValue: v } });
  const resource = { attributes: [kv("service.name", "app-1")] };
  const spans = await apiClient(base).post("/traces", {
    resourceSpans: [
      {
        resource,
        scopeSpans: [
          {
            scope: { name: "@opentelemetry/instrumentation-openai" },
            spans: [
              {
                traceId,
                spanId,
                name: "chat gpt-4o-mini",
                startTimeUnixNano: String(start),
                endTimeUnixNano: String(start + 400_000_000n),
                attributes: [kv("gen_ai.operation.name", "chat"), kv("gen_ai.request.model", "gpt-4o-mini"), kv("user.id", call.userId)],
              },
            ],
          },
        ],
      },
    ],
  });
  // Kept for its log events: a warning in partialSuccess with 0 spans rejected.
  if (spans.status !== 200 || Number(spans.body?.partialSuccess?.rejectedSpans ?? 0) > 0) return { status: 422, body: spans.body };
  const logs = await apiClient(base).post("/logs", {
    resourceLogs: [
      {
        resource,
        scopeLogs: [
          {
            scope: { name: "@opentelemetry/instrumentation-openai" },
            logRecords: [
              {
                timeUnixNano: String(start),
                traceId,
                spanId,
                attributes: [kv("event.name", "gen_ai.user.message"), kv("gen_ai.system", "openai")],
                body: { kvlistValue: { values: [kv("content", call.content)] } },
              },
            ],
          },
        ],
      },
    ],
  });
  if (logs.status === 200 && logs.body?.partialSuccess) return { status: 422, body: logs.body };
  return logs;
}

export type Snapshot = Map<string, string[]>;

const SNAPSHOT_SQL = `SELECT table_name FROM information_schema.tables
  WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name`;

async function snapshotWith(query: (sql: string) => Promise<Record<string, unknown>[]>): Promise<Snapshot> {
  const out: Snapshot = new Map();
  for (const t of await query(SNAPSHOT_SQL)) {
    const name = String(t.table_name);
    const rows = await query(`SELECT to_jsonb(t.*)::text AS r FROM "${name}" t`);
    out.set(name, rows.map((r) => String(r.r)).sort());
  }
  return out;
}

/** Every row of every table as JSON text (PostgreSQL: while the server runs; embedded: stopped). */
export async function snapshot(db: TestDatabase): Promise<Snapshot> {
  if (db.kind === "postgres") {
    const c = await connectPostgres(db.url!);
    try {
      return await snapshotWith(async (sql) => (await c.query(sql)).rows);
    } finally {
      await c.end();
    }
  }
  const [{ PGlite }, { vector }] = await Promise.all([import("@electric-sql/pglite"), import("@electric-sql/pglite-pgvector")]);
  const p = await PGlite.create({ dataDir: db.dataDir!, extensions: { vector } });
  try {
    return await snapshotWith(async (sql) => (await p.query<Record<string, unknown>>(sql)).rows);
  } finally {
    await p.close();
  }
}

/** Rows (table -> count) whose text holds the string, case-insensitively (full-text vectors are lowercase). */
export function rowsWith(s: Snapshot, needle: string): Record<string, number> {
  const n = needle.toLowerCase();
  const out: Record<string, number> = {};
  for (const [t, rows] of s) {
    const c = rows.filter((r) => r.toLowerCase().includes(n)).length;
    if (c) out[t] = c;
  }
  return out;
}

/** Tables an erasure may add rows to (its receipt, the project's salt). */
export const ERASURE_WRITES = new Set(["audit_events", "app_settings"]);

/**
 * After an erasure: every row is one that was there before, byte for byte (but the receipt
 * and salt), and every row of the other people is still there.
 */
export function expectOthersUntouched(before: Snapshot, after: Snapshot, others: Person[]) {
  for (const [t, rows] of after) {
    if (ERASURE_WRITES.has(t)) continue;
    const had = new Set(before.get(t) ?? []);
    const changed = rows.filter((r) => !had.has(r));
    expect(changed, `rows of ${t} that were not there before`).toEqual([]);
  }
  for (const o of others) {
    for (const [t, rows] of before) {
      const now = new Set(after.get(t) ?? []);
      const lost = rows.filter((r) => r.toLowerCase().includes(o.marker.toLowerCase()) && !now.has(r));
      expect(lost, `rows of ${o.userId} in ${t} changed or gone`).toEqual([]);
    }
  }
}

/**
 * A test database with a server on it, for suites that snapshot every row between requests.
 * The embedded database can be read only while no server has it open, so snapshot() stops that
 * server and starts a new one: read `server` and `api` after it, not a copy from before.
 */
export class ServedDatabase {
  server!: AppServer;
  api!: ReturnType<typeof apiClient>;
  private constructor(
    private readonly kind: DatabaseKind,
    readonly db: TestDatabase,
  ) {}

  static async start(kind: DatabaseKind): Promise<ServedDatabase> {
    const served = new ServedDatabase(kind, await openTestDatabase(kind));
    served.use(await served.db.startApp());
    return served;
  }

  private use(server: AppServer) {
    this.server = server;
    this.api = apiClient(server.url);
  }

  /** `restart: false` for a suite's last snapshot when no request follows it: the embedded server stays stopped (a start saved). */
  async snapshot(opts: { restart?: boolean } = {}): Promise<Snapshot> {
    if (this.kind === "postgres") return snapshot(this.db);
    await this.server.stop();
    const rows = await snapshot(this.db);
    if (opts.restart !== false) this.use(await this.db.startApp());
    return rows;
  }

  async stop() {
    await this.server?.stop();
    await this.db.stop();
  }
}
