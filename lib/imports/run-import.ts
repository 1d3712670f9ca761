import "server-only";
import { randomUUID } from "node:crypto";
import type { ProjectSql } from "../db/project-sql";
import { MEMORY_TABLES, noteBulkWrite } from "../db/planner-stats";
import { writeProviders } from "../embeddings/active-model";
import type { EmbeddingProvider } from "../embeddings/embedding-provider";
import { badTextReason, checkJsonValue } from "../http/input-guard";
import { DomainError } from "../errors/domain-errors";
import { contentKey } from "../memories/normalize-content";
import { recordEvent } from "../memories/record-event";
import { writeEmbeddings, type MemoryVector } from "../memories/write-embeddings";
import { checkIncidentsSoon } from "../incidents/on-ingest";
import { insertTurns, planTurns, turnIds, turnTotals, writeTurnRows, type PreparedTurn } from "../messages/insert-turns";
import { ZTurnInput, type TurnInput } from "../messages/schemas";
import { UUID_NIL } from "../threads/uuid-nil";
import { countsAt, countTextsAllEncodings, type TokenCounts } from "../tokens/count-tokens-parallel";
import { stableUuid } from "./stable-id";
import { IMPORT_DEFAULTS, importedChain } from "./imported-history";
import { emptyCounts, type ImportConversation, type ImportCounts, type ImportMemory, type ImportProblem, type ImportTurn, type ParsedImport } from "./types";
import { userIdProblem } from "../http/user-id";

// Writes normalized records into one project. Each conversation is all or nothing: created
// with its turns and its external id, or not at all. New conversations are written a chunk
// at a time, one statement per table for the whole chunk (the bulk path: a few round trips
// per thousands of turns instead of ten per conversation); when that chunk's transaction
// fails, each of its conversations is written again alone, in a transaction of its own, so a
// bad one fails alone. A conversation imported before gets only its turns that are new
// (Dify's database grows), through insertTurns. Each memory is a transaction too. A record
// already imported into this project is skipped. A dry run reads the same way and writes
// nothing. Token counting, the CPU part, runs in worker threads for a chunk of
// conversations while the previous chunk is written.
//
// Ids: a source's ids are kept (Dify's message and conversation ids, so parents stay
// parents). Ids are unique per project (migration 20261125000000_project_scoped_ids), so
// the same file imported into a second project keeps them there too, and nothing of the
// import depends on what other projects hold. Conversations imported before that, while ids
// were unique across projects, may have ids derived from the project and the source id
// (their external id's local id says so): their new turns get derived ids again.

export const MAX_PROBLEMS = 50;
const CHUNK_TURNS = 4000;
/** Also bounds a chunk of small conversations, so that progress moves as chunks commit. */
const CHUNK_CONVERSATIONS = 250;
const MEMORY_CHUNK = 100;

export type ImportProgress = ImportCounts & { processed: number; problems: ImportProblem[] };
export type RunOptions = {
  dryRun: boolean;
  jobId?: string | null;
  /** Called after each record (the caller throttles what it stores). */
  onProgress?: (p: ImportProgress) => void | Promise<void>;
  /** Aborted by a cancel: the run stops at its next record's end, never inside a transaction. */
  signal?: AbortSignal;
};

/** The run was cancelled (POST /imports/{id}/cancel): what it wrote before stays. */
export class ImportCancelled extends Error {
  constructor() {
    super("The import was cancelled");
  }
}

/** A batch's texts and their counts, started by countAhead(). */
type Ahead = { texts: string[]; counted: Promise<TokenCounts>; index?: Map<string, number> };
type Plan = { conv: ImportConversation; isNew: boolean; turns: TurnInput[]; paths: string[]; problem?: ImportProblem };
type Bulk = { plan: Plan; counts: TokenCounts; prepared: PreparedTurn[]; leafDelta: number; tokenDelta: number };

/** The id a source id gets in a project where the source's own id is taken by another project. */
export const projectLocalId = (projectId: string, sourceId: string) => stableUuid(`import:${projectId}:${sourceId}`);

export class ImportRun {
  readonly counts: ImportCounts = emptyCounts();
  readonly problems: ImportProblem[] = [];
  processed = 0;
  /** Turns written by the bulk path since planner statistics were last noted (once per batch, not per chunk). */
  private unanalyzed = 0;
  /** Batches whose counting countAhead() started. */
  private readonly ahead = new WeakMap<ParsedImport, Ahead>();

  constructor(
    private readonly sql: ProjectSql,
    private readonly opts: RunOptions,
  ) {}

  snapshot(): ImportProgress {
    return { ...this.counts, processed: this.processed, problems: this.problems.slice(0, MAX_PROBLEMS) };
  }

  private async tick(n = 1) {
    this.processed += n;
    await this.opts.onProgress?.(this.snapshot());
    // The embedded database runs queries on this thread and resolves them as microtasks:
    // without a macrotask turn between writes, HTTP requests would wait for the whole import.
    await new Promise((r) => setImmediate(r));
    this.checkCancelled();
  }

  /** Throws ImportCancelled once the job is cancelled. Called only between transactions (tick runs after a record is written or failed). */
  checkCancelled(): void {
    if (this.opts.signal?.aborted) throw new ImportCancelled();
  }

  private async fail(p: ImportProblem) {
    this.counts.failed++;
    if (this.problems.length < MAX_PROBLEMS) this.problems.push(p);
    await this.tick();
  }

  /**
   * Starts counting the tokens of a batch's turns in the worker pool, before add() is called
   * for it: a streamed import counts batch k+1 while batch k is written (this thread's work,
   * the embedded database's included), instead of one after the other. Nothing in the
   * database is read: which turns are new is still decided by add(), in order.
   */
  countAhead(parsed: ParsedImport): void {
    if (this.opts.dryRun || this.ahead.has(parsed)) return;
    const texts = parsed.conversations.flatMap((c) => c.turns.flatMap((t) => [t.query, t.answer])).filter((t): t is string => typeof t === "string");
    if (!texts.length) return;
    const counted = countTextsAllEncodings(texts, { offThread: true });
    counted.catch(() => {}); // awaited (and its failure met) by add()
    this.ahead.set(parsed, { texts, counted });
  }

  /** One parsed batch (a whole file, or one page of Dify's database). */
  async add(parsed: ParsedImport): Promise<void> {
    for (const p of parsed.problems) await this.fail(p);
    // The one user id rule (lib/http/user-id.ts), whatever the source: a record whose user no
    // route could address (a zip entry ../x.md makes the user "..") is reported, not written.
    const conversations = parsed.conversations.filter((c) => c.end_user_id === null || !userIdProblem(c.end_user_id));
    const memories = parsed.memories.filter((m) => !userIdProblem(m.user_id));
    for (const c of parsed.conversations) {
      const why = c.end_user_id === null ? null : userIdProblem(c.end_user_id);
      if (why) await this.fail({ record: c.record, field: "end_user_id", message: `${JSON.stringify(c.end_user_id)} is not a usable user id: ${why}` });
    }
    for (const m of parsed.memories) {
      const why = userIdProblem(m.user_id);
      if (why) await this.fail({ record: m.record, field: "user_id", message: `${JSON.stringify(m.user_id)} is not a usable user id: ${why}` });
    }
    if (parsed.skipped) {
      this.counts.skipped += parsed.skipped;
      await this.tick(parsed.skipped);
    }
    const ahead = this.ahead.get(parsed);
    this.ahead.delete(parsed);
    await this.conversations(parsed.source, conversations, ahead);
    if (this.unanalyzed) {
      await noteBulkWrite(this.sql, this.unanalyzed, ["messages", "conversations"]);
      this.unanalyzed = 0;
    }
    await this.memories(parsed.source, memories);
  }

  // ---- conversations ----

  private async conversations(source: string, all: ImportConversation[], ahead: Ahead | undefined) {
    const chunks: ImportConversation[][] = [];
    let cur: ImportConversation[] = [];
    let size = 0;
    for (const c of all) {
      cur.push(c);
      size += c.turns.length;
      if (size >= CHUNK_TURNS || cur.length >= CHUNK_CONVERSATIONS) {
        chunks.push(cur);
        cur = [];
        size = 0;
      }
    }
    if (cur.length) chunks.push(cur);

    // Plan and count chunk k+1 while chunk k is written.
    let next = chunks.length ? this.prepare(source, chunks[0], ahead) : null;
    for (let k = 0; k < chunks.length; k++) {
      const { plans, counts } = await next!;
      next = k + 1 < chunks.length ? this.prepare(source, chunks[k + 1], ahead) : null;
      await this.writeChunk(source, plans, counts);
    }
  }

  /** Which records are new, which turns of known ones are new, their local ids and token counts. */
  private async prepare(source: string, chunk: ImportConversation[], ahead: Ahead | undefined): Promise<{ plans: Plan[]; counts: TokenCounts | null }> {
    const projectId = this.sql.projectId;
    const known = await this.knownIds(source, "conversation", chunk.map((c) => c.externalId));
    // Which of the ids this project holds already (ids are unique per project: other projects' rows do not count).
    const newIds = chunk.filter((c) => !known.has(c.externalId)).map((c) => c.id);
    const takenConv = await this.held("conversations", newIds);
    const takenTurn = await this.held("messages", chunk.flatMap((c) => c.turns.map((t) => t.id)));

    const local = chunk.map((conv) => {
      const localId = known.get(conv.externalId);
      // Known with a local id that is not the source's: imported under derived ids, which its new turns keep.
      const remap = !!localId && localId !== conv.id;
      return { conv: remap ? remapConversation(conv, projectId, localId) : { ...conv, id: localId ?? conv.id }, isNew: !localId, remap };
    });
    const remappedTurnIds = local.filter((l) => l.remap).flatMap((l) => l.conv.turns.map((t) => t.id));
    const takenRemapped = await this.held("messages", remappedTurnIds);
    const stored = (l: (typeof local)[number], id: string) => (l.remap ? takenRemapped : takenTurn).has(id);

    const plans: Plan[] = [];
    for (const l of local) {
      const { conv, isNew } = l;
      const fresh = conv.turns.filter((t) => !stored(l, t.id));
      const turns: TurnInput[] = [];
      const paths: string[] = [];
      let problem: ImportProblem | null = null;
      for (const t of fresh) {
        const bad = textProblem(t);
        if (bad) {
          problem = { record: conv.record, field: `${t.path ?? `turn ${t.id}`}${bad.field ? `.${bad.field}` : ""}`, message: bad.message };
          break;
        }
        const r = ZTurnInput.safeParse({
          id: t.id,
          ...(t.parent_message_id !== undefined ? { parent_message_id: t.parent_message_id } : {}),
          query: t.query,
          answer: t.answer,
          ...(t.answer_tokens !== undefined ? { answer_tokens: t.answer_tokens } : {}),
          ...(t.created_at ? { created_at: t.created_at } : {}),
          files: t.files,
          metadata: t.metadata ?? null,
        });
        if (!r.success) {
          const issue = r.error.issues[0];
          problem = { record: conv.record, field: [t.path ?? `turn ${t.id}`, ...issue.path.map(String)].join("."), message: issue.message };
          break;
        }
        turns.push(r.data);
        paths.push(t.path ?? `turn ${t.id}`);
      }
      if (!problem && isNew && takenConv.has(conv.id)) problem = idTaken(conv);
      if (!problem && isNew && fresh.length < conv.turns.length) {
        const taken = conv.turns.find((t) => stored(l, t.id))!;
        problem = { record: conv.record, field: `${taken.path ?? "turn"}.id`, message: `message ${taken.id} already exists in another conversation` };
      }
      if (problem) plans.push({ conv, isNew, turns: [], paths: [], problem });
      else plans.push({ conv, isNew, turns, paths });
    }
    const texts = plans.flatMap((p) => p.turns.flatMap((t) => [t.query, t.answer]));
    // Off the server's thread whatever the size: counted inline, a small batch makes this thread
    // build both tiktoken encoders (seconds on a loaded machine), a pause long enough for the
    // server to drop the keep-alive sockets of the clients polling the job (ECONNRESET).
    const counts = this.opts.dryRun || !texts.length ? null : ahead ? await countedAhead(ahead, texts) : await countTextsAllEncodings(texts, { offThread: true });
    return { plans, counts };
  }

  /** Which of these ids (of conversations or messages) this project holds. */
  private async held(table: "conversations" | "messages", ids: string[]): Promise<Set<string>> {
    if (!ids.length) return new Set();
    const rows = await this.sql.query<{ id: string }>(`SELECT id FROM ${table} WHERE id = ANY($1::uuid[]) AND project_id = $2`, [ids, this.sql.projectId]);
    return new Set(rows.map((r) => r.id));
  }

  private async writeChunk(source: string, plans: Plan[], counts: TokenCounts | null) {
    const bulk: Bulk[] = [];
    const alone: { plan: Plan; counts?: TokenCounts }[] = [];
    const bulkIds = new Set<string>();
    const movedLeaves: ImportConversation[] = [];
    let offset = 0;
    for (const plan of plans) {
      const n = plan.turns.length;
      const slice = counts ? sliceCounts(counts, offset, n) : undefined;
      offset += n;
      if (plan.problem) await this.fail(plan.problem);
      else if (!plan.isNew && !n) {
        if (!this.opts.dryRun) movedLeaves.push(plan.conv);
        this.counts.skipped++;
        await this.tick();
      } else if (this.opts.dryRun) {
        this.counts.conversations++;
        this.counts.turns += n;
        await this.tick();
      } else if (!plan.isNew || !slice) alone.push({ plan, counts: slice });
      else {
        // A new conversation: nothing stored to read, so its rows are decided here.
        let b: Bulk;
        try {
          const ids = turnIds(plan.turns, "turns");
          const prepared = planTurns(plan.conv.id, plan.turns, ids, slice, { newest: null, stored: new Set() }, {
            allowMissingParents: plan.conv.allowMissingParents,
            fieldPrefix: "turns",
          });
          b = { plan, counts: slice, prepared, ...turnTotals(prepared) };
        } catch (e) {
          await this.fail(conversationProblem(plan.conv, plan.paths, e));
          continue;
        }
        // Two conversations of one chunk sharing an id: the second goes alone (and fails there, naming it).
        if (bulkIds.has(plan.conv.id) || b.prepared.some((p) => bulkIds.has(p.id))) alone.push({ plan, counts: slice });
        else {
          bulkIds.add(plan.conv.id);
          for (const p of b.prepared) bulkIds.add(p.id);
          bulk.push(b);
        }
      }
    }
    if (bulk.length) {
      let written = false;
      try {
        await this.sql.transaction((tx) => this.writeBulk(tx, source, bulk));
        written = true;
      } catch {
        // Something of the chunk was refused (an id taken meanwhile, ...): each conversation alone.
        alone.unshift(...bulk.map((b) => ({ plan: b.plan, counts: b.counts })));
      }
      if (written) {
        checkIncidentsSoon(this.sql, { conversationIds: bulk.map((b) => b.plan.conv.id) });
        const turns = bulk.reduce((n, b) => n + b.prepared.length, 0);
        this.counts.conversations += bulk.length;
        this.counts.turns += turns;
        this.unanalyzed += turns;
        await this.tick(bulk.length);
      }
    }
    for (const a of alone) await this.writeConversation(source, a.plan, a.counts);
    // Known conversations with nothing new: the export may still have moved its active leaf (another branch chosen).
    if (movedLeaves.length) await this.sql.transaction((tx) => syncActiveLeaves(tx, movedLeaves));
  }

  /** New conversations, their external ids and all their turns: one statement per table. */
  private async writeBulk(tx: ProjectSql, source: string, bulk: Bulk[]) {
    const col = <T>(f: (b: Bulk) => T) => bulk.map(f);
    const conv = (b: Bulk) => b.plan.conv;
    await tx.query(
      `INSERT INTO conversations (id, project_id, app_id, end_user_id, name, mode, model_config, status, turn_count, leaf_count, token_count, created_at, updated_at)
       SELECT u.id, $1, u.app_id, u.end_user_id, u.name, u.mode, u.model_config::jsonb, 'active', u.turns, u.leaves, u.tokens, u.created_at,
              -- as the one-by-one path leaves it: the source's last activity, else the moment of the import
              CASE WHEN u.last IS NULL THEN now() ELSE GREATEST(u.created_at, u.last) END
         FROM unnest($2::uuid[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::int[], $9::int[], $10::int[], $11::timestamptz[], $12::timestamptz[])
           AS u(id, app_id, end_user_id, name, mode, model_config, turns, leaves, tokens, created_at, last)`,
      [
        tx.projectId,
        col((b) => conv(b).id),
        col((b) => conv(b).app_id),
        col((b) => conv(b).end_user_id),
        col((b) => conv(b).name),
        col((b) => conv(b).mode),
        col((b) => storedConfig(conv(b))),
        col((b) => b.prepared.length),
        col((b) => b.leafDelta),
        col((b) => b.tokenDelta),
        col((b) => createdAt(conv(b), b.plan.turns)),
        col((b) => lastActivity(conv(b), b.plan.turns) ?? null),
      ],
    );
    await tx.query(
      `INSERT INTO import_external_ids (project_id, source, kind, external_id, local_id, job_id)
       SELECT $1, $2, 'conversation', u.external_id, u.local_id, $3 FROM unnest($4::text[], $5::uuid[]) AS u(external_id, local_id)`,
      [tx.projectId, source, this.opts.jobId ?? null, col((b) => conv(b).externalId), col((b) => conv(b).id)],
    );
    await writeTurnRows(tx, bulk.flatMap((b) => b.prepared), false);
  }

  private async writeConversation(source: string, plan: Plan, counts: TokenCounts | undefined) {
    const { conv, turns } = plan;
    try {
      await this.sql.transaction(async (tx) => {
        if (plan.isNew) {
          // The conversation and its external id in one statement (round trips are most of a small conversation's cost).
          const [row] = await tx.query<{ local_id: string }>(
            `WITH c AS (
               INSERT INTO conversations (id, project_id, app_id, end_user_id, name, mode, model_config, status, created_at, updated_at)
               VALUES ($1, $11, $2, $3, $4, $5, $6::jsonb, 'active', $7, $7) ON CONFLICT (project_id, id) DO NOTHING RETURNING id)
             INSERT INTO import_external_ids (project_id, source, kind, external_id, local_id, job_id)
             SELECT $11, $8, 'conversation', $9, c.id, $10 FROM c RETURNING local_id`,
            [conv.id, conv.app_id, conv.end_user_id, conv.name, conv.mode, storedConfig(conv), createdAt(conv, turns), source, conv.externalId, this.opts.jobId ?? null, tx.projectId],
          );
          if (!row) throw new ImportFailure(idTaken(conv));
        }
        await insertTurns(tx, conv.id, turns, { allowMissingParents: conv.allowMissingParents, fieldPrefix: "turns", minimal: true, counts, keepActiveLeaf: true });
        // Lists sort by activity: the source's, not the moment of the import.
        const last = lastActivity(conv, turns);
        if (last) await tx.query(`UPDATE conversations SET updated_at = GREATEST(created_at, $2::timestamptz) WHERE id = $1 AND project_id = $3`, [conv.id, last, tx.projectId]);
        if (!plan.isNew) await syncActiveLeaves(tx, [conv]);
      });
    } catch (e) {
      return this.fail(conversationProblem(conv, plan.paths, e));
    }
    checkIncidentsSoon(this.sql, { conversationIds: [conv.id] });
    this.counts.conversations++;
    this.counts.turns += turns.length;
    return this.tick();
  }

  // ---- memories ----

  private async memories(source: string, all: ImportMemory[]) {
    let providers: EmbeddingProvider[] | null = null;
    for (let i = 0; i < all.length; i += MEMORY_CHUNK) {
      const chunk = all.slice(i, i + MEMORY_CHUNK);
      const known = await this.knownIds(source, "memory", chunk.map((m) => m.externalId));
      const fresh: ImportMemory[] = [];
      for (const m of chunk) {
        if (known.has(m.externalId)) continue;
        const why = badTextReason(m.content);
        if (why) await this.fail({ record: m.record, field: "memory", message: why });
        else fresh.push(m);
      }
      for (const m of chunk) {
        if (!known.has(m.externalId)) continue;
        this.counts.skipped++;
        await this.tick();
      }
      if (!fresh.length) continue;
      if (this.opts.dryRun) {
        for (const _ of fresh) {
          this.counts.memories++;
          await this.tick();
        }
        continue;
      }
      providers ??= await writeProviders(this.sql);
      const vectors = await embedAll(providers, fresh.map((m) => m.content));
      for (let k = 0; k < fresh.length; k++) await this.writeMemory(source, fresh[k], vectors[k]);
      await noteBulkWrite(this.sql, fresh.length, MEMORY_TABLES);
    }
  }

  private async writeMemory(source: string, m: ImportMemory, vectors: MemoryVector[]) {
    const id = randomUUID();
    // A history is written as whole snapshots with moving versions, so as_of reads rebuild it.
    const chain = importedChain(m);
    try {
      await this.sql.transaction(async (tx) => {
        const created = m.created_at ?? new Date().toISOString();
        await tx.query(
          `INSERT INTO memories (id, project_id, app_id, user_id, memory_type, content, structured_data, content_key, status, created_at, updated_at, version)
           VALUES ($1, $11, $2, $3, $4, $5, $6::jsonb, $7, $8::memory_status, $9, $10, $12)`,
          [
            id,
            m.app_id,
            m.user_id,
            m.memory_type,
            m.content,
            m.structured_data ? JSON.stringify(m.structured_data) : null,
            contentKey(m.content),
            m.status,
            created,
            chain?.updatedAt ?? m.updated_at ?? created,
            tx.projectId,
            chain?.final.version ?? 1,
          ],
        );
        await writeEmbeddings(tx, id, m.user_id, vectors);
        for (const e of chain?.events ?? []) {
          await recordEvent(tx, { memoryId: id, type: e.type, actor: "system", before: e.before, after: e.after, reason: e.reason, createdAt: e.created_at });
        }
        // With a history, the import itself changed nothing (its version does not move): as_of
        // reads skip it. Without one, it is where the memory began in Memscope.
        const now = { memory_type: m.memory_type, content: m.content, structured_data: m.structured_data, ...IMPORT_DEFAULTS, status: m.status, version: chain?.final.version ?? 1 };
        await recordEvent(tx, {
          memoryId: id,
          type: "import",
          actor: "api",
          before: chain ? now : null,
          after: chain ? now : { memory_type: m.memory_type, content: m.content, status: m.status },
          reason: `imported from ${source} (${m.externalId})`,
        });
        await tx.query(
          `INSERT INTO import_external_ids (project_id, source, kind, external_id, local_id, job_id) VALUES ($5, $1, 'memory', $2, $3, $4)`,
          [source, m.externalId, id, this.opts.jobId ?? null, tx.projectId],
        );
      });
    } catch (e) {
      return this.fail({ record: m.record, message: e instanceof Error ? e.message : String(e) });
    }
    this.counts.memories++;
    return this.tick();
  }

  private async knownIds(source: string, kind: "conversation" | "memory", ids: string[]): Promise<Map<string, string>> {
    if (!ids.length) return new Map();
    const rows = await this.sql.query<{ external_id: string; local_id: string }>(
      `SELECT external_id, local_id FROM import_external_ids WHERE project_id = $4 AND source = $1 AND kind = $2 AND external_id = ANY($3::text[])`,
      [source, kind, ids, this.sql.projectId],
    );
    return new Map(rows.map((r) => [r.external_id, r.local_id]));
  }
}

/** Text PostgreSQL cannot store (NUL, lone surrogates), found before any write. */
function textProblem(t: ImportConversation["turns"][number]): { field?: string; message: string } | null {
  for (const k of ["query", "answer"] as const) {
    const why = badTextReason(t[k]);
    if (why) return { field: k, message: why };
  }
  try {
    if (t.metadata) checkJsonValue(t.metadata, "metadata");
  } catch (e) {
    return { field: (e as DomainError).details?.[0]?.field, message: (e as Error).message };
  }
  return null;
}

class ImportFailure extends Error {
  constructor(readonly problem: ImportProblem) {
    super(problem.message);
  }
}

const idTaken = (conv: ImportConversation): ImportProblem => ({
  record: conv.record,
  field: "id",
  message: `conversation ${conv.id} already exists in this project and was not imported from this source`,
});

/** A domain error's first detail, its turn index mapped back to the record's own path. */
function conversationProblem(conv: ImportConversation, paths: string[], e: unknown): ImportProblem {
  if (e instanceof ImportFailure) return e.problem;
  if (e instanceof DomainError) {
    const d = e.details[0];
    const field = d?.field?.replace(/^turns\[(\d+)\]/, (_, i) => paths[Number(i)] ?? `turn ${i}`);
    return { record: conv.record, ...(field ? { field } : {}), message: d ? `${e.message}: ${d.message}` : e.message };
  }
  return { record: conv.record, message: e instanceof Error ? e.message : String(e) };
}

/** The conversation's time: the source's, else its first turn's, else now. */
function createdAt(conv: ImportConversation, turns: TurnInput[]): string {
  return conv.created_at ?? turns[0]?.created_at ?? new Date().toISOString();
}

/**
 * A new conversation's model_config as stored: the source's active leaf is also kept as
 * imported_active_leaf_message_id, the leaf the source itself last named. The active leaf
 * moves with turns written later (lib/messages/insert-turns.ts); a re-import moves it only
 * when the source names another leaf than it did (syncActiveLeaves), so re-running the same
 * export does not undo those turns.
 */
function storedConfig(conv: ImportConversation): string | null {
  const leaf = conv.model_config?.active_leaf_message_id;
  if (!conv.model_config) return null;
  return JSON.stringify(typeof leaf === "string" ? { ...conv.model_config, imported_active_leaf_message_id: leaf } : conv.model_config);
}

/** Re-imported conversations whose source names another active leaf than last time (ChatGPT's current_node moved): the pointer follows, one statement. */
async function syncActiveLeaves(tx: ProjectSql, convs: ImportConversation[]) {
  const moved = convs.flatMap((c) => {
    const leaf = c.model_config?.active_leaf_message_id;
    return typeof leaf === "string" ? [{ id: c.id, leaf }] : [];
  });
  if (!moved.length) return;
  await tx.query(
    `UPDATE conversations c
        SET model_config = coalesce(c.model_config, '{}'::jsonb) || jsonb_build_object('active_leaf_message_id', u.leaf, 'imported_active_leaf_message_id', u.leaf)
       FROM unnest($1::uuid[], $2::text[]) AS u(id, leaf)
      WHERE c.id = u.id AND c.project_id = $3 AND c.model_config->>'imported_active_leaf_message_id' IS DISTINCT FROM u.leaf`,
    [moved.map((m) => m.id), moved.map((m) => m.leaf), tx.projectId],
  );
}

/** The source's last activity: its updated_at or the newest turn, whichever is later. */
function lastActivity(conv: ImportConversation, turns: TurnInput[]): string | undefined {
  return [conv.updated_at, ...turns.map((t) => t.created_at)].filter((x): x is string => !!x).sort().at(-1);
}

/** A conversation under ids of this project's own (see the top of this file); parents follow their turns. */
function remapConversation(conv: ImportConversation, projectId: string, knownLocalId: string | undefined): ImportConversation {
  const map = (id: string) => projectLocalId(projectId, id);
  const id = knownLocalId ?? map(conv.id);
  // A later root's parent is the conversation itself (dify-roots.ts): it follows the conversation's id.
  const parent = (p: string | null | undefined) => (p === undefined || p === null || p === UUID_NIL ? p : p === conv.id ? id : map(p));
  // The active leaf the source recorded names a turn: it follows its turn's id.
  const leaf = conv.model_config?.active_leaf_message_id;
  return {
    ...conv,
    id,
    model_config: typeof leaf === "string" ? { ...conv.model_config, active_leaf_message_id: map(leaf) } : conv.model_config,
    turns: conv.turns.map((t): ImportTurn => ({ ...t, id: map(t.id), parent_message_id: parent(t.parent_message_id) })),
  };
}

/**
 * Counts of `texts` (a chunk's new turns, as validated) from what countAhead() counted for
 * the whole batch; should a text be one it did not see (none expected), all are counted now.
 */
async function countedAhead(ahead: Ahead, texts: string[]): Promise<TokenCounts> {
  const all = await ahead.counted;
  const index = (ahead.index ??= new Map());
  if (!index.size) ahead.texts.forEach((t, i) => index.has(t) || index.set(t, i));
  const at = texts.map((t) => index.get(t) ?? -1);
  return at.includes(-1) ? countTextsAllEncodings(texts, { offThread: true }) : countsAt(all, at);
}

function sliceCounts(c: TokenCounts, turnOffset: number, turns: number): TokenCounts {
  const [from, to] = [2 * turnOffset, 2 * (turnOffset + turns)];
  return {
    o200k_base: c.o200k_base.subarray(from, to),
    cl100k_base: c.cl100k_base.subarray(from, to),
    approximate: c.approximate.subarray(from, to),
    path: c.path,
  };
}

async function embedAll(providers: EmbeddingProvider[], texts: string[]): Promise<MemoryVector[][]> {
  const perProvider = await Promise.all(providers.map((p) => p.embed(texts)));
  return texts.map((_, i) => providers.map((provider, k) => ({ provider, vector: perProvider[k][i] })));
}
