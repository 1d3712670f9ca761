import "server-only";
import { randomUUID } from "node:crypto";
import type { SqlRunner } from "../db/migrations";
import { projectSql } from "../db/project-sql"; // interim: the imports branch scopes imports to the caller's project
import { writeProviders } from "../embeddings/active-model";
import type { EmbeddingProvider } from "../embeddings/embedding-provider";
import { badTextReason, checkJsonValue } from "../api/input-guard";
import { DomainError } from "../errors/domain-errors";
import { contentKey } from "../memories/normalize-content";
import { recordEvent } from "../memories/record-event";
import { writeEmbeddings, type MemoryVector } from "../memories/write-embeddings";
import { insertTurns } from "../messages/insert-turns";
import { ZTurnInput, type TurnInput } from "../messages/schemas";
import { countTextsAllEncodings, type TokenCounts } from "../tokens/count-tokens-parallel";
import { emptyCounts, type ImportConversation, type ImportCounts, type ImportMemory, type ImportProblem, type ParsedImport } from "./types";

// Writes normalized records through the domain code. Each conversation is one
// transaction (created with its turns and its external id, or not at all); each memory
// likewise. A record already imported is skipped, or, for a conversation, gets only its
// turns that are new (Dify's database grows). A dry run reads the same way and writes
// nothing. Token counting, the CPU part, runs in worker threads for a chunk of
// conversations while the previous chunk is written.

export const MAX_PROBLEMS = 50;
const CHUNK_TURNS = 4000;
const MEMORY_CHUNK = 100;

export type ImportProgress = ImportCounts & { processed: number; problems: ImportProblem[] };
export type RunOptions = {
  dryRun: boolean;
  jobId?: string | null;
  /** Called after each record (the caller throttles what it stores). */
  onProgress?: (p: ImportProgress) => void | Promise<void>;
};

type Plan = { conv: ImportConversation; isNew: boolean; turns: TurnInput[]; paths: string[]; problem?: ImportProblem };

export class ImportRun {
  readonly counts: ImportCounts = emptyCounts();
  readonly problems: ImportProblem[] = [];
  processed = 0;

  constructor(
    private readonly sql: SqlRunner,
    private readonly opts: RunOptions,
  ) {}

  snapshot(): ImportProgress {
    return { ...this.counts, processed: this.processed, problems: this.problems.slice(0, MAX_PROBLEMS) };
  }

  private async tick() {
    this.processed++;
    await this.opts.onProgress?.(this.snapshot());
    // The embedded database runs queries on this thread and resolves them as microtasks:
    // without a macrotask turn between records, HTTP requests would wait for the whole import.
    await new Promise((r) => setImmediate(r));
  }

  private async fail(p: ImportProblem) {
    this.counts.failed++;
    if (this.problems.length < MAX_PROBLEMS) this.problems.push(p);
    await this.tick();
  }

  /** One parsed batch (a whole file, or one page of Dify's database). */
  async add(parsed: ParsedImport): Promise<void> {
    for (const p of parsed.problems) await this.fail(p);
    await this.conversations(parsed.source, parsed.conversations);
    await this.memories(parsed.source, parsed.memories);
  }

  // ---- conversations ----

  private async conversations(source: string, all: ImportConversation[]) {
    const chunks: ImportConversation[][] = [];
    let cur: ImportConversation[] = [];
    let size = 0;
    for (const c of all) {
      cur.push(c);
      size += c.turns.length;
      if (size >= CHUNK_TURNS) {
        chunks.push(cur);
        cur = [];
        size = 0;
      }
    }
    if (cur.length) chunks.push(cur);

    // Plan and count chunk k+1 while chunk k is written.
    let next = chunks.length ? this.prepare(source, chunks[0]) : null;
    for (let k = 0; k < chunks.length; k++) {
      const { plans, counts } = await next!;
      next = k + 1 < chunks.length ? this.prepare(source, chunks[k + 1]) : null;
      let offset = 0;
      for (const plan of plans) {
        const n = plan.turns.length;
        const slice = counts ? sliceCounts(counts, offset, n) : undefined;
        offset += n;
        await this.writeConversation(source, plan, slice);
      }
    }
  }

  /** Which records are new, which turns of known ones are new, and their token counts. */
  private async prepare(source: string, chunk: ImportConversation[]): Promise<{ plans: Plan[]; counts: TokenCounts | null }> {
    const known = await this.knownIds(source, "conversation", chunk.map((c) => c.externalId));
    const turnIds = chunk.flatMap((c) => c.turns.map((t) => t.id));
    const stored = new Set(
      turnIds.length
        ? (await this.sql.query<{ id: string }>(`SELECT id FROM messages WHERE id = ANY($1::uuid[])`, [turnIds])).map((r) => r.id)
        : [],
    );
    // New records whose id is taken by a conversation that was not imported from this source.
    const newIds = chunk.filter((c) => !known.has(c.externalId)).map((c) => c.id);
    const taken = new Set(
      newIds.length ? (await this.sql.query<{ id: string }>(`SELECT id FROM conversations WHERE id = ANY($1::uuid[])`, [newIds])).map((r) => r.id) : [],
    );
    const plans: Plan[] = [];
    for (const conv of chunk) {
      const local = known.get(conv.externalId);
      const isNew = !local;
      const fresh = conv.turns.filter((t) => !stored.has(t.id));
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
      if (!problem && isNew && taken.has(conv.id)) problem = idTaken(conv);
      if (!problem && isNew && fresh.length < conv.turns.length) {
        const taken = conv.turns.find((t) => stored.has(t.id))!;
        problem = { record: conv.record, field: `${taken.path ?? "turn"}.id`, message: `message ${taken.id} already exists in another conversation` };
      }
      if (problem) plans.push({ conv, isNew, turns: [], paths: [], problem });
      else plans.push({ conv: { ...conv, id: local ?? conv.id }, isNew, turns, paths });
    }
    const texts = plans.flatMap((p) => p.turns.flatMap((t) => [t.query, t.answer]));
    const counts = this.opts.dryRun || !texts.length ? null : await countTextsAllEncodings(texts);
    return { plans, counts };
  }

  private async writeConversation(source: string, plan: Plan, counts: TokenCounts | undefined) {
    const { conv, turns } = plan;
    if (plan.problem) return this.fail(plan.problem);
    if (!plan.isNew && !turns.length) {
      this.counts.skipped++;
      return this.tick();
    }
    if (this.opts.dryRun) {
      this.counts.conversations++;
      this.counts.turns += turns.length;
      return this.tick();
    }
    try {
      await this.sql.transaction(async (tx) => {
        if (plan.isNew) {
          const created = conv.created_at ?? turns[0]?.created_at ?? new Date().toISOString();
          // The conversation and its external id in one statement (round trips are most of a small conversation's cost).
          const [row] = await tx.query<{ local_id: string }>(
            `WITH c AS (
               INSERT INTO conversations (id, app_id, end_user_id, name, mode, model_config, status, created_at, updated_at)
               VALUES ($1, $2, $3, $4, $5, $6::jsonb, 'active', $7, $7) ON CONFLICT (id) DO NOTHING RETURNING id)
             INSERT INTO import_external_ids (source, kind, external_id, local_id, job_id)
             SELECT $8, 'conversation', $9, c.id, $10 FROM c RETURNING local_id`,
            [conv.id, conv.app_id, conv.end_user_id, conv.name, conv.mode, conv.model_config ? JSON.stringify(conv.model_config) : null, created, source, conv.externalId, this.opts.jobId ?? null],
          );
          if (!row) throw new ImportFailure(idTaken(conv));
        }
        await insertTurns(projectSql(tx, "default"), conv.id, turns, { allowMissingParents: conv.allowMissingParents, fieldPrefix: "turns", minimal: true, counts });
        // Lists sort by activity: the source's, not the moment of the import.
        const last = [conv.updated_at, ...turns.map((t) => t.created_at)].filter((x): x is string => !!x).sort().at(-1);
        if (last) await tx.query(`UPDATE conversations SET updated_at = GREATEST(created_at, $2::timestamptz) WHERE id = $1`, [conv.id, last]);
      });
    } catch (e) {
      return this.fail(conversationProblem(conv, plan.paths, e));
    }
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
      providers ??= await writeProviders(projectSql(this.sql, "default"));
      const vectors = await embedAll(providers, fresh.map((m) => m.content));
      for (let k = 0; k < fresh.length; k++) await this.writeMemory(source, fresh[k], vectors[k]);
    }
  }

  private async writeMemory(source: string, m: ImportMemory, vectors: MemoryVector[]) {
    const id = randomUUID();
    try {
      await projectSql(this.sql, "default").transaction(async (tx) => {
        const created = m.created_at ?? new Date().toISOString();
        await tx.query(
          `INSERT INTO memories (id, app_id, user_id, memory_type, content, structured_data, content_key, status, created_at, updated_at)
           VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8::memory_status, $9, $10)`,
          [id, m.app_id, m.user_id, m.memory_type, m.content, m.structured_data ? JSON.stringify(m.structured_data) : null, contentKey(m.content), m.status, created, m.updated_at ?? created],
        );
        await writeEmbeddings(tx, id, m.user_id, vectors);
        for (const e of m.history) {
          await recordEvent(tx, {
            memoryId: id,
            type: e.type,
            actor: "system",
            before: e.before !== null ? { content: e.before } : null,
            after: e.after !== null ? { content: e.after } : null,
            reason: e.reason,
            createdAt: e.created_at ?? null,
          });
        }
        await recordEvent(tx, {
          memoryId: id,
          type: "import",
          actor: "api",
          after: { memory_type: m.memory_type, content: m.content, status: m.status },
          reason: `imported from ${source} (${m.externalId})`,
        });
        await tx.query(
          `INSERT INTO import_external_ids (source, kind, external_id, local_id, job_id) VALUES ($1, 'memory', $2, $3, $4)`,
          [source, m.externalId, id, this.opts.jobId ?? null],
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
      `SELECT external_id, local_id FROM import_external_ids WHERE source = $1 AND kind = $2 AND external_id = ANY($3::text[])`,
      [source, kind, ids],
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
  message: `conversation ${conv.id} already exists in Memscope and was not imported from this source`,
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
