import { ProtobufTraceSerializer } from "@opentelemetry/otlp-transformer";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { describe, expect, it } from "vitest";
import { decodeTracesProto } from "@/lib/capture/otlp-proto";
import { ingestTraces, STATEMENT_SIZES, type StatementSizes } from "@/lib/capture/store-captures";
import { StageTimes } from "@/lib/capture/stage-times";
import { UPDATES_PER_VACUUM } from "@/lib/db/embedded-vacuum";
import { DEFAULT_PROJECT_ID, projectSql, type ProjectSql } from "@/lib/db/project-sql";
import { useEmbeddedDatabase } from "../helpers/embedded-database";

// POST /traces writes a request's turns and captured prompts in statements of a size chosen
// by database (STATEMENT_SIZES: on PostgreSQL one statement each, the fewest round trips;
// on PGlite turns in 64-row statements and captured prompts in ~48 KB ones, each run on the request thread). Same
// rows whatever the sizes, all in one transaction. Real PGlite database, spans from the
// OpenTelemetry SDK's serializer.

const store = useEmbeddedDatabase();

/** An export request: `conversations` conversations of `turns` chat spans, each sending the conversation so far. */
function request(tag: string, conversations: number, turns: number, pad = 50) {
  const memory = new InMemorySpanExporter();
  const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(memory)] }).getTracer("t");
  const t0 = Date.UTC(2026, 0, 1);
  for (let c = 0; c < conversations; c++) {
    const history: unknown[] = [];
    for (let i = 0; i < turns; i++) {
      history.push({ role: "user", parts: [{ type: "text", content: `${tag} question ${c}.${i} ${"ü".repeat(i * pad)}` }] });
      const out = [{ role: "assistant", parts: [{ type: "text", content: `answer ${c}.${i}` }] }];
      tracer
        .startSpan("chat", {
          startTime: new Date(t0 + i * 1000),
          attributes: {
            "gen_ai.operation.name": "chat",
            "gen_ai.conversation.id": `${tag}-conv-${c}`,
            "gen_ai.input.messages": JSON.stringify(history),
            "gen_ai.output.messages": JSON.stringify(out),
          },
        })
        .end(new Date(t0 + i * 1000 + 500));
      history.push(out[0]);
    }
  }
  return decodeTracesProto(ProtobufTraceSerializer.serializeRequest(memory.getFinishedSpans())!);
}

/** The statements a run sends, by their first words; `failOn` throws instead of running the n-th statement that starts so. */
function recording(sql: ProjectSql, seen: string[], failOn?: { start: string; nth: number }): ProjectSql {
  return {
    ...sql,
    query: async (text, params) => {
      const head = text.trim().split(/\s+/).slice(0, 3).join(" ");
      seen.push(head);
      if (failOn && head.startsWith(failOn.start) && seen.filter((s) => s.startsWith(failOn.start)).length === failOn.nth) throw new Error("injected failure");
      return sql.query(text, params);
    },
    transaction: (fn) => sql.transaction((tx) => fn(recording(tx, seen, failOn))),
  };
}

/** Each stored conversation of `tag`: its counters, its turns in order with their parents, and its captured prompts. */
async function stored(tag: string) {
  const convs = await store.db.sql.query<{ id: string; name: string; turn_count: number; leaf_count: number; token_count: number }>(
    `SELECT id, name, turn_count, leaf_count, token_count FROM conversations WHERE name LIKE $1 ORDER BY name`,
    [`${tag}-conv-%`],
  );
  return Promise.all(
    convs.map(async (c) => {
      const turns = await store.db.sql.query<{ id: string; parent_message_id: string | null; tree_parent_id: string | null; query: string }>(
        `SELECT id, parent_message_id, tree_parent_id, query FROM messages WHERE conversation_id = $1 ORDER BY created_at, seq`,
        [c.id],
      );
      const captured = await store.db.sql.query<{ message_id: string; n: number }>(
        `SELECT message_id, input_count AS n FROM captured_spans WHERE conversation_id = $1 ORDER BY started_at`,
        [c.id],
      );
      return { conversation: c, turns, captured };
    }),
  );
}

const shape = (rows: Awaited<ReturnType<typeof stored>>) =>
  rows.map(({ conversation: c, turns, captured }) => ({
    name: c.name.replace(/^[^-]+/, ""),
    counts: [c.turn_count, c.leaf_count, c.token_count > 0],
    chain: turns.map((t, i) => [t.parent_message_id === (i ? turns[i - 1].id : null), t.tree_parent_id === (i ? turns[i - 1].id : null), t.query.replace(/^\S+/, "")]),
    captured: captured.map((x, i) => [x.message_id === turns[i].id, x.n]),
  }));

async function ingest(tag: string, sizes: StatementSizes, seen: string[] = [], failOn?: { start: string; nth: number }) {
  const sql = recording(projectSql(store.db.sql, DEFAULT_PROJECT_ID), seen, failOn);
  return ingestTraces(sql, request(tag, 3, 9), new Date(), new StageTimes(), sizes);
}

describe("OTLP ingest statements on the embedded database", () => {
  it("small statements store exactly what one statement each stores", async () => {
    const one: string[] = [];
    const small: string[] = [];
    const r1 = await ingest("whole", STATEMENT_SIZES.server, one);
    const r2 = await ingest("small", { turns: 4, captureBytes: 1500 }, small);
    expect(r1.turns_created).toBe(27);
    expect(r2.turns_created).toBe(27);
    expect(one.filter((s) => s.startsWith("INSERT INTO messages"))).toHaveLength(1);
    expect(one.filter((s) => s.startsWith("INSERT INTO captured_spans"))).toHaveLength(1);
    expect(one.filter((s) => s.startsWith("INSERT INTO captured_messages"))).toHaveLength(1);
    // 27 turns by 4: 7 inserts; captured rows and messages by ~1.5 KB: more than one statement each.
    expect(small.filter((s) => s.startsWith("INSERT INTO messages"))).toHaveLength(7);
    expect(small.filter((s) => s.startsWith("INSERT INTO captured_spans")).length).toBeGreaterThan(3);
    expect(small.filter((s) => s.startsWith("INSERT INTO captured_messages")).length).toBeGreaterThan(3);
    // The lookups go by the same sizes: where each new turn attaches (by turns). Which prompt nodes are stored: each
    // call's chain holds the call before it in the request, so only each agent's first call and system node are probed
    // (3 + 3, in one statement even at 16 probes a statement; the next test probes in parts).
    expect(one.filter((s) => s === "SELECT u.i, b.id")).toHaveLength(1);
    expect(small.filter((s) => s === "SELECT u.i, b.id")).toHaveLength(7);
    expect(one.filter((s) => s === "SELECT u.i FROM")).toHaveLength(1);
    expect(small.filter((s) => s === "SELECT u.i FROM")).toHaveLength(1);
    const whole = shape(await stored("whole"));
    expect(whole).toHaveLength(3);
    expect(whole[0].counts).toEqual([9, 1, true]);
    expect(whole[0].captured.map(([same, n]) => [same, n])).toEqual(Array.from({ length: 9 }, (_, i) => [true, 2 * i + 1]));
    expect(shape(await stored("small"))).toEqual(whole);
  });

  it("a statement that fails after others leaves nothing of the request", async () => {
    await expect(ingest("failed", { turns: 4, captureBytes: 1500 }, [], { start: "INSERT INTO captured_spans", nth: 2 })).rejects.toThrow("injected failure");
    await expect(ingest("failed", { turns: 4, captureBytes: 1500 }, [], { start: "INSERT INTO captured_messages", nth: 2 })).rejects.toThrow("injected failure");
    expect((await store.db.sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM captured_messages WHERE body::text LIKE '%failed question%'`))[0].n).toBe(0);
    expect(await stored("failed")).toEqual([]);
    expect((await store.db.sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM messages WHERE query LIKE 'failed %'`))[0].n).toBe(0);
  });

  it("on PostgreSQL's sizes a request's turns and captured prompts go in one statement each, on PGlite's in 64-turn and ~48 KB ones", async () => {
    // ~0.7 MB of distinct messages (each stored once: the histories resent are not written again).
    const big = (tag: string) => request(tag, 10, 10, 1500);
    const server: string[] = [];
    const embedded: string[] = [];
    await ingestTraces(recording(projectSql(store.db.sql, DEFAULT_PROJECT_ID), server), big("big-server"), new Date(), new StageTimes(), STATEMENT_SIZES.server);
    await ingestTraces(recording(projectSql(store.db.sql, DEFAULT_PROJECT_ID), embedded), big("big-embedded"), new Date(), new StageTimes(), STATEMENT_SIZES.embedded);
    expect(server.filter((s) => s.startsWith("INSERT INTO captured_messages"))).toHaveLength(1);
    expect(embedded.filter((s) => s.startsWith("INSERT INTO captured_messages")).length).toBeGreaterThan(4);
    // 100 turns: one insert on PostgreSQL, 64 + 36 on PGlite (each statement holds the server's thread).
    expect(server.filter((s) => s.startsWith("INSERT INTO messages"))).toHaveLength(1);
    expect(embedded.filter((s) => s.startsWith("INSERT INTO messages"))).toHaveLength(2);
  });

  it("without conversation ids, the lookup of earlier calls goes in parts on small sizes and joins the same calls", async () => {
    // 3 agents x 9 calls, no gen_ai.conversation.id, one trace per call: calls 0-4 in one request, 5-8 in the next, so
    // the second request finds each agent's call 4 stored by its digest. Each call's longest prefix is looked up first
    // (12 keys: one statement at 16 a statement), and no call needs its shorter ones. Its prompt nodes: each agent's
    // call 5 probes its last two nodes (6 probes, 4 a statement at 1 turn: 2 statements; the calls after it hold it).
    const spansOf = (tag: string) => {
      const memory = new InMemorySpanExporter();
      const tracer = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(memory)] }).getTracer("t");
      const t0 = Date.UTC(2026, 0, 2);
      for (let c = 0; c < 3; c++) {
        const history: unknown[] = [];
        for (let i = 0; i < 9; i++) {
          history.push({ role: "user", parts: [{ type: "text", content: `${tag} question ${c}.${i}` }] });
          const out = [{ role: "assistant", parts: [{ type: "text", content: `${tag} answer ${c}.${i}` }] }];
          tracer
            .startSpan("chat", { startTime: new Date(t0 + i * 1000), attributes: { "gen_ai.operation.name": "chat", "gen_ai.input.messages": JSON.stringify(history), "gen_ai.output.messages": JSON.stringify(out) } })
            .end(new Date(t0 + i * 1000 + 500));
          history.push(out[0]);
        }
      }
      const all = memory.getFinishedSpans();
      const early = all.filter((x) => /question \d\.[0-4]"/.test(String(x.attributes["gen_ai.input.messages"]).slice(-80)));
      return [early, all.filter((x) => !early.includes(x))].map((b) => decodeTracesProto(ProtobufTraceSerializer.serializeRequest(b)!));
    };
    const joined = async (tag: string) =>
      (
        await store.db.sql.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM messages WHERE query LIKE $1 GROUP BY conversation_id ORDER BY 1`,
          [`${tag} question %`],
        )
      ).map((r) => r.n);
    for (const [tag, sizes] of [["nokey-one", STATEMENT_SIZES.server], ["nokey-parts", { turns: 1, captureBytes: 1500 }]] as const) {
      const seen: string[] = [];
      const sql = recording(projectSql(store.db.sql, DEFAULT_PROJECT_ID), seen);
      const [early, late] = spansOf(tag);
      expect((await ingestTraces(sql, early, new Date(), new StageTimes(), sizes)).turns_created).toBe(15);
      seen.length = 0;
      expect((await ingestTraces(sql, late, new Date(), new StageTimes(), sizes)).turns_created).toBe(12);
      expect(seen.filter((x) => x === "SELECT u.k AS")).toHaveLength(1);
      expect(seen.filter((x) => x === "SELECT u.i FROM")).toHaveLength(tag === "nokey-one" ? 1 : 2);
      // Each agent's 9 calls one conversation.
      expect(await joined(tag)).toEqual([9, 9, 9]);
    }
  });

  it("on PGlite's sizes the conversations are vacuumed once their row updates pass UPDATES_PER_VACUUM, on PostgreSQL's never", async () => {
    // PGlite runs no autovacuum: each request updates its conversations' rows, and the foreign-key checks of later turns
    // walked every old version (embedded-vacuum.ts). A request of UPDATES_PER_VACUUM conversations passes the threshold.
    const vacuums = async () => {
      await store.db.sql.query(`SELECT pg_stat_force_next_flush()`);
      await store.db.sql.query(`SELECT pg_stat_clear_snapshot()`);
      return (await store.db.sql.query<{ n: number }>(`SELECT vacuum_count::int AS n FROM pg_stat_user_tables WHERE relname = 'conversations'`))[0].n;
    };
    const v0 = await vacuums();
    expect((await ingestTraces(projectSql(store.db.sql, DEFAULT_PROJECT_ID), request("vacuum-server", UPDATES_PER_VACUUM, 1), new Date(), new StageTimes(), STATEMENT_SIZES.server)).turns_created).toBe(UPDATES_PER_VACUUM);
    expect(await vacuums()).toBe(v0);
    expect((await ingestTraces(projectSql(store.db.sql, DEFAULT_PROJECT_ID), request("vacuum-embedded", UPDATES_PER_VACUUM, 1), new Date(), new StageTimes(), STATEMENT_SIZES.embedded)).turns_created).toBe(UPDATES_PER_VACUUM);
    expect(await vacuums()).toBe(v0 + 1);
  });
});
