// The plans of POST /traces's statements: runs ingestTraces on a few requests of bench:otel's
// shape and, for the last one, each statement as EXPLAIN (ANALYZE, BUFFERS) (it still runs,
// so the request is stored as usual), printing plans with per-node times and trigger times.
// PGlite, or BENCH_DATABASE_URL. Diagnostic for bench:otel.
//   tsx --conditions=react-server bench/diag/otel-explain.ts
import { decodeTracesProto } from "../../lib/capture/otlp-proto";
import { ingestTraces, STATEMENT_SIZES } from "../../lib/capture/store-captures";
import { openDatabase } from "../../lib/db/open-database";
import { DEFAULT_PROJECT_ID, projectSql, type ProjectSql } from "../../lib/db/project-sql";
import { makeTempDir, removeDir } from "../lib/common";
import { otelRequestBody } from "../lib/otel-request";

const WARM = Number(process.env.BENCH_REQUESTS || 5);
const body = otelRequestBody;

const dir = makeTempDir("memscope-diag-otel-explain-");
const url = process.env.BENCH_DATABASE_URL;
const db = await openDatabase(url ? { kind: "postgres", url } : { kind: "pglite", dataDir: dir });
const base = projectSql(db.sql, DEFAULT_PROJECT_ID);
let explain = false;
const explaining = (s: ProjectSql): ProjectSql => ({
  ...s,
  query: async (text, params) => {
    if (!explain) return s.query(text, params);
    const plan = await s.query<Record<string, string>>(`EXPLAIN (ANALYZE, BUFFERS, TIMING) ${text}`, params);
    console.log(`\n--- ${text.trim().split("\n")[0].slice(0, 100)}`);
    for (const r of plan) console.log(Object.values(r)[0]);
    return [] as never;
  },
  transaction: (fn) => s.transaction((tx) => fn(explaining(tx))),
});
const sql = explaining(base);
for (let i = 0; i < WARM; i++) await ingestTraces(sql, decodeTracesProto(body()), new Date(), undefined, STATEMENT_SIZES[url ? "server" : "embedded"]);
explain = true;
await ingestTraces(sql, decodeTracesProto(body()), new Date(), undefined, STATEMENT_SIZES[url ? "server" : "embedded"]).catch((e) => console.log(`(the request after the plans: ${(e as Error).message})`));
await db.close?.();
removeDir(dir);
process.exit(0);
