import "server-only";
import type { ProjectSql } from "../db/project-sql";
import { writeProviders } from "../embeddings/active-model";
import { configuredChat, type ChatConfig } from "../chat/chat-provider";
import { ConfigurationError, ValidationError } from "../errors/domain-errors";
import { stableUuid } from "../imports/stable-id";
import { contentKey } from "../memories/normalize-content";
import { toVectorLiteral } from "../embeddings/embedding-provider";
import { planTurns, turnIds, turnTotals, writeTurnRows, type PreparedTurn } from "../messages/insert-turns";
import { MEMORY_TABLES, noteBulkWrite } from "../db/planner-stats";
import { countTextsAllEncodings } from "../tokens/count-tokens-parallel";
import { badTextReason } from "../http/input-guard";
import { parseLoCoMo, parseLongMemEval, RecordError, type BenchConversation, type BenchDefect, type BenchRecord, type Extraction } from "./benchmark-formats";
import { MAX_LISTED_DEFECTS, type ImportSummaryOut } from "./schemas";
import { chatMemories } from "./chat-extraction";
import { BenchmarkFileError, benchmarkRecords, type BenchmarkChunks } from "./benchmark-records";
import { addCases, requireSet } from "./sets-db";

// Writes a LongMemEval or LoCoMo file record by record (benchmark-records.ts: one record in
// memory at a time). Each record is one transaction: its conversations and turns, its
// memories (with their source turn, embedded for every model retrieval writes) and its
// cases. Ids are derived from the project and the file's own ids, so a re-import finds what
// it wrote and skips it. A malformed record is a 422 naming it, and nothing is written: the
// file is read twice when it can be (a first pass parses and checks every record, writing
// nothing; the second writes), all or nothing. A one-shot stream is read once, and the
// records before a bad one stay written (each was whole).

/** What an import of cases answers (its schema: ZImportSummary). */
export type ImportSummary = ImportSummaryOut;

export type BenchmarkImport = {
  format: "longmemeval" | "locomo";
  /** The file: bytes (an upload read from disk) or text (an API body); a function or an array can be read twice (all or nothing). */
  chunks: BenchmarkChunks | (() => BenchmarkChunks);
  userPrefix?: string;
  extraction: Extraction;
  /** Read the whole file and report what it holds and every defect; write nothing. */
  dryRun?: boolean;
  /** After each record (the CLI prints progress). */
  onRecord?: (s: ImportSummary) => void;
};

const APP_ID = "memscope-evals";

export async function importBenchmark(sql: ProjectSql, setId: string, o: BenchmarkImport): Promise<ImportSummary> {
  await requireSet(sql, setId);
  const summary: ImportSummary = { cases: 0, skipped: 0, conversations: 0, turns: 0, memories: 0, dry_run: !!o.dryRun, defects: [], defect_count: 0 };
  const report = (d: BenchDefect) => {
    summary.defect_count++;
    if (summary.defects.length < MAX_LISTED_DEFECTS) summary.defects.push(d);
  };
  const prefix = o.userPrefix ?? o.format;
  const chat = o.extraction === "chat" ? configuredChat() : null;
  if (o.extraction === "chat" && !chat && !o.dryRun) {
    throw new ConfigurationError("chat_not_configured", "extraction \"chat\" needs a chat model: set MEMSCOPE_CHAT_BASE_URL and MEMSCOPE_CHAT_MODEL on the server, or import with \"rules\" or \"turns\"", [
      { field: "extraction", message: "no chat model configured" },
    ]);
  }
  const providers = o.dryRun ? [] : await writeProviders(sql);
  const parse = o.format === "longmemeval" ? parseLongMemEval : parseLoCoMo;
  const source = o.chunks;
  const again = typeof source === "function" ? source : Array.isArray(source) ? () => source : null;
  const once = () => (again ? again() : (source as BenchmarkChunks));
  try {
    if (o.dryRun) {
      for await (const el of benchmarkRecords(once())) {
        // Every defect of the file, not the first: a record that cannot be read is one more.
        try {
          const rec = parse(el.value, el.index, { projectId: sql.projectId, prefix, extraction: o.extraction });
          rec.defects.forEach(report);
          for (const c of rec.conversations) for (const t of c.turns) {
            const why = badTextReason(t.query) ?? badTextReason(t.answer);
            if (why) report({ record: `conversation ${c.externalId}`, external_id: null, field: `turn ${t.evidenceKey}`, message: why, unscorable: true });
          }
          summary.cases += rec.cases.length;
          summary.conversations += rec.conversations.length;
          summary.turns += rec.conversations.reduce((n, c) => n + c.turns.length, 0);
          summary.memories += rec.memories.length;
        } catch (e) {
          if (!(e instanceof RecordError)) throw e;
          report({ record: e.record, external_id: null, field: e.field, message: e.message, unscorable: true });
        }
        await new Promise((r) => setImmediate(r));
      }
      return summary;
    }
    if (again) {
      // The checking pass: every record parsed and its texts checked, nothing written.
      for await (const el of benchmarkRecords(again())) {
        checkTexts(parse(el.value, el.index, { projectId: sql.projectId, prefix, extraction: o.extraction }));
        await new Promise((r) => setImmediate(r));
      }
    }
    for await (const el of benchmarkRecords(once())) {
      const rec = parse(el.value, el.index, { projectId: sql.projectId, prefix, extraction: o.extraction });
      await writeRecord(sql, setId, rec, providers, summary, chat);
      rec.defects.forEach(report);
      o.onRecord?.(summary);
      // The embedded database answers on this thread: let other requests in between records.
      await new Promise((r) => setImmediate(r));
    }
  } catch (e) {
    if (e instanceof RecordError) {
      throw new ValidationError(`${o.format} file: ${e.message}`, [{ field: `${e.record}: ${e.field}`, message: e.message, record: e.record }], "invalid_eval_file");
    }
    if (e instanceof BenchmarkFileError) throw new ValidationError(`${o.format} file: ${e.message}`, [{ field: "content", message: e.message }], "invalid_eval_file");
    throw e;
  }
  return summary;
}

/** Text the database cannot store is the record's problem (a 422 naming it), found before anything is written. */
function checkTexts(rec: BenchRecord) {
  for (const c of rec.conversations) for (const t of c.turns) {
    const why = badTextReason(t.query) ?? badTextReason(t.answer);
    if (why) throw new RecordError(`conversation ${c.externalId}`, `turn ${t.evidenceKey}`, why);
  }
}

async function writeRecord(
  sql: ProjectSql,
  setId: string,
  rec: BenchRecord,
  providers: Awaited<ReturnType<typeof writeProviders>>,
  summary: ImportSummary,
  chat: ChatConfig | null,
) {
  checkTexts(rec);
  const heldConv = await sql.query<{ id: string }>(`SELECT id FROM conversations WHERE project_id = $1 AND id = ANY($2::uuid[])`, [sql.projectId, rec.conversations.map((c) => c.id)]);
  const convDone = new Set(heldConv.map((r) => r.id));
  if (chat) {
    // Only sessions not imported yet: a model's answer differs from one call to the next, so
    // a re-import must not add a second, different set of memories for a session.
    for (const c of rec.conversations) {
      if (convDone.has(c.id)) continue;
      const r = await chatMemories(chat, c);
      for (const m of r.memories) {
        const why = badTextReason(m.content);
        if (!why) rec.memories.push(m);
      }
    }
  }
  const memIds = rec.memories.map((m) => stableUuid(`memory:${sql.projectId}:${m.conversationId}:${m.externalId}`));
  const heldMem = await sql.query<{ id: string }>(`SELECT id FROM memories WHERE project_id = $1 AND id = ANY($2::uuid[])`, [sql.projectId, memIds]);
  const memDone = new Set(heldMem.map((r) => r.id));
  const fresh = rec.memories.map((m, i) => ({ m, id: memIds[i] })).filter((x) => !memDone.has(x.id));
  const vectors = fresh.length ? await Promise.all(providers.map((p) => p.embed(fresh.map((x) => x.m.content)))) : [];
  // The record's new sessions: their turns planned (parents, times, token counts) before the
  // transaction, then one statement for the conversations and one for all their turns. Per
  // conversation (insertTurns: six statements each) a LongMemEval question of 40 sessions
  // took ~5 s.
  const planned: { c: BenchConversation; prepared: PreparedTurn[]; leafDelta: number; tokenDelta: number; last: string }[] = [];
  for (const c of rec.conversations) {
    if (convDone.has(c.id)) continue;
    const turns = c.turns.map((t) => ({ id: t.id, query: t.query, answer: t.answer, created_at: t.created_at, files: [] }));
    // Counted per session: a session's texts stay under the worker pool's threshold, so they
    // are counted on this thread, a few ms each, with a turn of the event loop after each.
    // One batch per record went to the pool, whose two threads (their own heaps and
    // encoders) added ~150 MB of resident memory to the import (bench/diag/evals-import-profile.ts).
    const counts = await countTextsAllEncodings(turns.flatMap((t) => [t.query, t.answer]));
    await new Promise((r) => setImmediate(r));
    const prepared = planTurns(c.id, turns, turnIds(turns, "turns"), counts, { newest: null, stored: new Set() }, { fieldPrefix: "turns" });
    planned.push({ c, prepared, ...turnTotals(prepared), last: c.turns.length ? c.turns[c.turns.length - 1].created_at : c.created_at });
  }
  await sql.transaction(async (tx) => {
    if (planned.length) {
      await tx.query(
        `INSERT INTO conversations (id, project_id, app_id, end_user_id, name, mode, model_config, status, turn_count, leaf_count, token_count, created_at, updated_at)
         SELECT u.id, $1, $2, $3, u.name, 'chat', NULL, 'active', u.turns, u.leaves, u.tokens, u.created_at, u.last
           FROM unnest($4::uuid[], $5::text[], $6::int[], $7::int[], $8::int[], $9::timestamptz[], $10::timestamptz[]) AS u(id, name, turns, leaves, tokens, created_at, last)`,
        [
          tx.projectId,
          APP_ID,
          rec.userId,
          planned.map((p) => p.c.id),
          planned.map((p) => p.c.name),
          planned.map((p) => p.prepared.length),
          planned.map((p) => p.leafDelta),
          planned.map((p) => p.tokenDelta),
          planned.map((p) => p.c.created_at),
          planned.map((p) => p.last),
        ],
      );
      await writeTurnRows(tx, planned.flatMap((p) => p.prepared), false);
    }
    if (fresh.length) {
      // One statement per table for the record's memories (a LongMemEval question holds
      // hundreds of turns: row-at-a-time writes made the import crawl).
      await tx.query(
        // structured_data.source_half: the half of the benchmark turn (its question or its answer) a
        // memory was made from, which the longmemeval protocol reads (it indexes user turns only).
        `INSERT INTO memories (id, project_id, app_id, user_id, memory_type, content, content_key, importance_score, source_session_id, source_message_id, created_at, updated_at, structured_data)
         SELECT x.id, $1, $2, $3, x.memory_type::memory_type, x.content, x.content_key, x.importance, x.conversation_id, x.message_id, x.created_at, x.created_at,
                CASE WHEN x.half IS NULL THEN NULL ELSE jsonb_build_object('source_half', x.half) END
           FROM unnest($4::uuid[], $5::text[], $6::text[], $7::text[], $8::float8[], $9::uuid[], $10::uuid[], $11::timestamptz[], $12::text[])
             AS x(id, memory_type, content, content_key, importance, conversation_id, message_id, created_at, half)`,
        [
          tx.projectId,
          APP_ID,
          rec.userId,
          fresh.map((x) => x.id),
          fresh.map((x) => x.m.memory_type),
          fresh.map((x) => x.m.content),
          fresh.map((x) => contentKey(x.m.content)),
          fresh.map((x) => x.m.importance),
          fresh.map((x) => x.m.conversationId),
          fresh.map((x) => x.m.messageId),
          fresh.map((x) => x.m.created_at),
          fresh.map((x) => x.m.half ?? null),
        ],
      );
      for (const [p, provider] of providers.entries()) {
        await tx.query(
          `INSERT INTO memory_embeddings (memory_id, model, user_id, dimensions, embedding, project_id)
           SELECT x.id, $1, $2, $3, x.v::vector, $4 FROM unnest($5::uuid[], $6::text[]) AS x(id, v)`,
          [provider.model, rec.userId, provider.dimensions, tx.projectId, fresh.map((x) => x.id), vectors[p].map((v) => toVectorLiteral(v))],
        );
      }
      await tx.query(
        `INSERT INTO memory_events (id, memory_id, event_type, actor, before, after, reason, created_at, project_id, actor_label)
         SELECT gen_random_uuid(), x.id, 'import', 'api', NULL, x.after, 'imported from an eval benchmark file', x.created_at, $1, $2
           FROM unnest($3::uuid[], $4::jsonb[], $5::timestamptz[]) AS x(id, after, created_at)`,
        [tx.projectId, tx.actorLabel, fresh.map((x) => x.id), fresh.map((x) => JSON.stringify({ memory_type: x.m.memory_type, content: x.m.content, status: "active" })), fresh.map((x) => x.m.created_at)],
      );
    }
  });
  // Counted once committed: the transaction may run more than once (lib/db/retry-contention.ts).
  summary.conversations += planned.length;
  summary.turns += planned.reduce((n, p) => n + p.prepared.length, 0);
  summary.memories += fresh.length;
  // Planner statistics follow bulk writes (as insertTurns does after each batch).
  if (planned.length) await noteBulkWrite(sql, planned.reduce((n, p) => n + p.prepared.length, 0), ["messages", "conversations"]);
  if (fresh.length) await noteBulkWrite(sql, fresh.length, MEMORY_TABLES);
  if (rec.cases.length) {
    const r = await addCases(sql, setId, rec.cases);
    summary.cases += r.data.length;
    summary.skipped += r.skipped;
  }
}

