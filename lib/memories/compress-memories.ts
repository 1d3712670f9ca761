import "server-only";
import { randomUUID } from "node:crypto";
import { z } from "zod";
import { unprocessable, type ErrorDetail } from "../errors/domain-errors";
import type { ProjectSql } from "../db/project-sql";
import { chatComplete, configuredChat, parseJsonAnswer, type ChatConfig } from "../chat/chat-provider";
import { activeProvider, writeProviders } from "../embeddings/active-model";
import { fromVectorText } from "../embeddings/embedding-provider";
import { ProviderError } from "../embeddings/openai-embedder";
import { actorOf, addSystemRelation, checkSources, embedTexts, insertMemoryRow, lockMemories, setStatusRow } from "./curation-db";
import type { CompressApplyInput, CompressApplyResult, CompressPreview, CompressPreviewInput } from "./curation-schemas";
import { cosine, joinDistinctSentences } from "./curation-text";
import { loadMemories } from "./load-memory";
import { MEMORY_COLUMNS, serializeMemory, snapshot, type MemoryRow } from "./memory-row";
import { recordEvent } from "./record-event";
import type { Memory, MemoryType } from "./schemas";
import { writeEmbeddings } from "./write-embeddings";

// The design doc's compress_old_memories (2.2): active memories that have not been
// accessed for N days (never accessed: created N days ago) and were accessed fewer
// than max_access_count times are grouped by type; each group of >= 3 becomes 1-3
// compressed memories. Preview proposes, the user may edit, apply writes.
//
// Relations: `compressed derived_from original` (source_id = the new compressed
// memory, target_id = each original it summarizes), created_by system. The originals
// are archived, never deleted.

export const MAX_CONSIDERED = 2000;
const CHAT_CHUNK = 40;
const LOCAL_CLUSTER_MAX = 20;

type Proposal = CompressPreview["proposals"][number];

// ---------- pure: local clustering ----------

/**
 * Greedy clustering: walk the items in order; an unassigned item starts a cluster and
 * takes every later unassigned item whose cosine to it is >= threshold. Items without a
 * vector stay alone. Returns clusters of indexes, in order of their first item.
 */
export function greedyClusters(vectors: (number[] | null)[], threshold: number): number[][] {
  const assigned = new Array<boolean>(vectors.length).fill(false);
  const clusters: number[][] = [];
  for (let i = 0; i < vectors.length; i++) {
    if (assigned[i]) continue;
    assigned[i] = true;
    const cluster = [i];
    const seed = vectors[i];
    if (seed) {
      for (let j = i + 1; j < vectors.length; j++) {
        const v = vectors[j];
        if (!assigned[j] && v && cosine(seed, v) >= threshold) {
          assigned[j] = true;
          cluster.push(j);
        }
      }
    }
    clusters.push(cluster);
  }
  return clusters;
}

function chunk<T>(xs: T[], size: number): T[][] {
  if (xs.length <= size) return [xs];
  const parts = Math.ceil(xs.length / size);
  const per = Math.ceil(xs.length / parts);
  const out: T[][] = [];
  for (let i = 0; i < xs.length; i += per) out.push(xs.slice(i, i + per));
  return out;
}

type Source = Pick<Memory, "id" | "content" | "importance_score">;

/**
 * Local proposals for one type group: clusters of >= 2 similar memories each become one
 * compressed memory (their distinct sentences joined); up to 3 clusters per proposal.
 * When nothing clusters, the whole group is one cluster (as the design compresses a
 * whole group). Memories that cluster with nothing else are left as they are.
 */
export function localProposals(memoryType: MemoryType, group: Source[], vectors: (number[] | null)[], threshold: number): Proposal[] {
  let clusters = greedyClusters(vectors, threshold).filter((c) => c.length >= 2);
  if (!clusters.length) clusters = [group.map((_, i) => i)];
  const pieces = clusters.flatMap((c) => chunk(c, LOCAL_CLUSTER_MAX)).filter((c) => c.length >= 2);
  const proposals: Proposal[] = [];
  for (let i = 0; i < pieces.length; i += 3) {
    const batch = pieces.slice(i, i + 3);
    const members = batch.flat().map((k) => group[k]);
    proposals.push({
      memory_type: memoryType,
      source_ids: members.map((m) => m.id),
      sources: members.map((m) => ({ id: m.id, content: m.content, importance_score: m.importance_score })),
      compressed: batch.map((c) => ({
        content: joinDistinctSentences(c.map((k) => group[k].content)),
        importance_score: Math.max(...c.map((k) => group[k].importance_score)),
        source_ids: c.map((k) => group[k].id),
      })),
      method: "local-cluster",
    });
  }
  return proposals;
}

// ---------- chat ----------

export function compressPrompt(memoryType: string, contents: string[]): string {
  return `Here are ${contents.length} old memories of type ${memoryType}:

${contents.map((c, i) => `${i + 1}. ${c}`).join("\n")}

Compress them into 1-3 core memories that keep the most important information.

Answer JSON:
{"memories": [
  {"content": "the compressed memory", "importance_score": 0.8, "source_memory_ids": [1, 2]}
]}
source_memory_ids are the numbers of the memories above that each compressed memory summarizes.`;
}

const ZChatCompressed = z.object({
  content: z.string().trim().min(1).max(20_000),
  importance_score: z.coerce.number().min(0).max(1).optional(),
  source_memory_ids: z.array(z.union([z.number(), z.string()])).optional(),
});

/** The model's answer as a list: a bare array, or the first array-valued field of an object. */
export function answerList(answer: unknown): unknown[] {
  if (Array.isArray(answer)) return answer;
  if (answer && typeof answer === "object") {
    for (const v of Object.values(answer)) if (Array.isArray(v)) return v;
  }
  throw new ProviderError("Chat model did not answer a JSON list");
}

async function chatProposals(chat: ChatConfig, memoryType: MemoryType, group: Source[]): Promise<Proposal[]> {
  const proposals: Proposal[] = [];
  for (const part of chunk(group, CHAT_CHUNK)) {
    if (part.length < 2) continue;
    const raw = answerList(parseJsonAnswer(await chatComplete(chat, compressPrompt(memoryType, part.map((m) => m.content)), { json: true })));
    const items = raw.map((r) => ZChatCompressed.safeParse(r)).filter((r) => r.success).map((r) => r.data);
    if (!items.length) throw new ProviderError("Chat model's compression answer has no usable memory");
    const all = part.map((m) => m.id);
    proposals.push({
      memory_type: memoryType,
      source_ids: all,
      sources: part.map((m) => ({ id: m.id, content: m.content, importance_score: m.importance_score })),
      compressed: items.slice(0, 3).map((it) => {
        const ids = (it.source_memory_ids ?? [])
          .map((ref) => (typeof ref === "number" || /^\d+$/.test(ref) ? part[Number(ref) - 1]?.id : part.find((m) => m.id === ref)?.id))
          .filter((x): x is string => !!x);
        return {
          content: it.content,
          importance_score: it.importance_score ?? Math.max(...part.map((m) => m.importance_score)),
          source_ids: ids.length ? [...new Set(ids)] : all,
        };
      }),
      method: "chat",
    });
  }
  return proposals;
}

// ---------- preview ----------

export async function previewCompression(sql: ProjectSql, userId: string, input: CompressPreviewInput): Promise<CompressPreview> {
  const where = `m.user_id = $1 AND m.project_id = $4 AND m.status = 'active' AND m.access_count < $2
    AND COALESCE(m.last_accessed_at, m.created_at) <= now() - ($3::double precision * interval '1 day')
    ${input.memory_types ? "AND m.memory_type::text = ANY($5::text[])" : ""}`;
  const params: unknown[] = [userId, input.max_access_count, input.older_than_days, sql.projectId, ...(input.memory_types ? [input.memory_types] : [])];
  const [{ n }] = await sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM memories m WHERE ${where}`, params);
  const rows = await sql.query<MemoryRow>(
    `SELECT ${MEMORY_COLUMNS} FROM memories m WHERE ${where}
      ORDER BY COALESCE(m.last_accessed_at, m.created_at), m.id LIMIT ${MAX_CONSIDERED}`,
    params,
  );
  const memories = rows.map(serializeMemory);
  const groups = new Map<MemoryType, Memory[]>();
  for (const m of memories) groups.set(m.memory_type, [...(groups.get(m.memory_type) ?? []), m]);

  const chat = configuredChat();
  const vectors = chat ? new Map<string, number[]>() : await storedVectors(sql, memories.map((m) => m.id));
  const proposals: Proposal[] = [];
  for (const [type, group] of groups) {
    if (group.length < input.min_group_size) continue;
    if (chat) proposals.push(...(await chatProposals(chat, type, group)));
    else proposals.push(...localProposals(type, group, group.map((m) => vectors.get(m.id) ?? null), input.similarity_threshold));
  }
  return { proposals, eligible: n, truncated: n > memories.length };
}

async function storedVectors(sql: ProjectSql, ids: string[]): Promise<Map<string, number[]>> {
  if (!ids.length) return new Map();
  const provider = await activeProvider(sql);
  const rows = await sql.query<{ memory_id: string; embedding: string }>(
    `SELECT memory_id, embedding::text AS embedding FROM memory_embeddings WHERE model = $1 AND memory_id = ANY($2::uuid[]) AND project_id = $3`,
    [provider.model, ids, sql.projectId],
  );
  return new Map(rows.map((r) => [r.memory_id, fromVectorText(r.embedding)]));
}

// ---------- apply ----------

function checkProposalShape(input: CompressApplyInput) {
  const details: ErrorDetail[] = [];
  const seen = new Map<string, string>();
  input.proposals.forEach((p, i) => {
    p.source_ids.forEach((id, j) => {
      const field = `proposals[${i}].source_ids[${j}]`;
      if (seen.has(id)) details.push({ field, message: `also in ${seen.get(id)}`, id });
      else seen.set(id, field);
    });
    const own = new Set(p.source_ids);
    p.compressed.forEach((c, k) =>
      (c.source_ids ?? []).forEach((id, j) => {
        if (!own.has(id)) details.push({ field: `proposals[${i}].compressed[${k}].source_ids[${j}]`, message: "not one of the proposal's source_ids", id });
      }),
    );
  });
  if (details.length) throw unprocessable("Proposals overlap or reference memories they do not compress", details);
}

export async function applyCompression(sql: ProjectSql, userId: string, input: CompressApplyInput): Promise<CompressApplyResult> {
  checkProposalShape(input);
  const allIds = input.proposals.flatMap((p) => p.source_ids);
  const current = await loadMemories(sql, allIds);
  input.proposals.forEach((p, i) => checkSources(p.source_ids, current, { field: `proposals[${i}].source_ids`, userId }));

  const items = input.proposals.flatMap((p) => p.compressed.map((c) => ({ p, c })));
  const vectors = await embedTexts(await writeProviders(sql), items.map(({ c }) => c.content));

  return sql.transaction(async (tx) => {
    const batchId = randomUUID();
    const actor = actorOf(input.actor);
    const why = input.reason ? `: ${input.reason}` : "";
    const found = await lockMemories(tx, allIds);
    const created: Memory[] = [];
    let k = 0;
    for (const [i, p] of input.proposals.entries()) {
      const sources = checkSources(p.source_ids, found, { field: `proposals[${i}].source_ids`, userId });
      const byId = new Map(sources.map((s) => [s.id, s]));
      const made: string[] = [];
      for (const c of p.compressed) {
        const covers = (c.source_ids ?? p.source_ids).map((id) => byId.get(id)!);
        const appIds = new Set(covers.map((s) => s.app_id));
        const m = await insertMemoryRow(tx, {
          userId,
          appId: appIds.size === 1 ? covers[0].app_id : null,
          memoryType: p.memory_type,
          content: c.content,
          importance: c.importance_score,
          confidence: covers.reduce((a, s) => a + s.confidence, 0) / covers.length,
        });
        await writeEmbeddings(tx, m.id, userId, vectors[k++]);
        await recordEvent(tx, {
          memoryId: m.id,
          type: "compress",
          actor,
          after: snapshot(m),
          reason: `compressed from ${covers.length} memories (${p.method ?? "edited"})${why}`,
          batchId,
        });
        for (const s of covers) await addSystemRelation(tx, m.id, s.id, "derived_from", "compression");
        created.push(m);
        made.push(m.id);
      }
      for (const s of sources) {
        await setStatusRow(tx, s, "archived", { type: "compress", actor, reason: `compressed into ${made.join(", ")}${why}`, batchId });
      }
    }
    return {
      batch_id: batchId,
      created,
      archived_ids: allIds,
      counts: { proposals: input.proposals.length, created: created.length, archived: allIds.length },
    };
  });
}
