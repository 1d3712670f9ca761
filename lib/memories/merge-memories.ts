import "server-only";
import { randomUUID } from "node:crypto";
import { z } from "zod";
import type { ProjectSql } from "../db/project-sql";
import { chatComplete, configuredChat, parseJsonAnswer } from "../chat/chat-provider";
import { writeProviders } from "../embeddings/active-model";
import { ProviderError } from "../embeddings/openai-embedder";
import { actorOf, addSystemRelation, checkSources, embedTexts, insertMemoryRow, lockMemories, setStatusRow } from "./curation-db";
import type { MergeInput, MergeResult, MergeSuggestion } from "./curation-schemas";
import { joinDistinctSentences, mostCommon } from "./curation-text";
import { loadMemories } from "./load-memory";
import { snapshot } from "./memory-row";
import { recordEvent } from "./record-event";
import type { Memory } from "./schemas";
import { writeEmbeddings, type MemoryVector } from "./write-embeddings";

// Merging N memories into one new memory. The sources are archived (never deleted)
// and each gets a relation `source merged_into merged` (created_by system), so the
// merge can be undone (unmerge-memory.ts). All of it is one transaction with one
// batch_id across the history events.

/** Embeds the merged content: outside the transaction, it may call a remote endpoint. */
export async function embedMergedContent(sql: ProjectSql, content: string): Promise<MemoryVector[]> {
  const providers = await writeProviders(sql);
  return (await embedTexts(providers, [content]))[0];
}

/** The merge itself, inside the caller's transaction. `userId` restricts the sources to one user. */
export async function applyMerge(
  tx: ProjectSql,
  input: MergeInput,
  vectors: MemoryVector[],
  opts: { userId?: string; batchId?: string; field?: string } = {},
): Promise<MergeResult> {
  const batchId = opts.batchId ?? randomUUID();
  const actor = actorOf(input.actor);
  const found = await lockMemories(tx, input.ids);
  const sources = checkSources(input.ids, found, { field: opts.field ?? "ids", userId: opts.userId });

  const structured: Record<string, unknown> = {};
  for (const s of sources) Object.assign(structured, s.structured_data ?? {});
  const appIds = new Set(sources.map((s) => s.app_id));
  const merged = await insertMemoryRow(tx, {
    userId: sources[0].user_id,
    appId: appIds.size === 1 ? sources[0].app_id : null,
    memoryType: input.memory_type ?? mostCommon(sources.map((s) => s.memory_type)),
    content: input.content,
    structuredData: structured,
    importance: Math.max(...sources.map((s) => s.importance_score)),
    confidence: sources.reduce((a, s) => a + s.confidence, 0) / sources.length,
  });
  await writeEmbeddings(tx, merged.id, merged.user_id, vectors);
  const why = input.reason ?? null;
  await recordEvent(tx, {
    memoryId: merged.id,
    type: "merge",
    actor,
    after: snapshot(merged),
    reason: `merged from ${sources.length} memories${why ? `: ${why}` : ""}`,
    batchId,
  });
  for (const s of sources) {
    await setStatusRow(tx, s, "archived", { type: "merge", actor, reason: `merged into ${merged.id}${why ? `: ${why}` : ""}`, batchId });
    await addSystemRelation(tx, s.id, merged.id, "merged_into");
  }
  return { ...merged, merged_from: sources.map((s) => s.id), batch_id: batchId };
}

export async function mergeMemories(sql: ProjectSql, input: MergeInput): Promise<MergeResult> {
  // Validate before embedding, so a bad request never calls a provider.
  checkSources(input.ids, await loadMemories(sql, input.ids), { field: "ids" });
  const vectors = await embedMergedContent(sql, input.content);
  return sql.transaction((tx) => applyMerge(tx, input, vectors));
}

const ZMergeAnswer = z.object({ content: z.string().trim().min(1) });

export function mergePrompt(contents: string[]): string {
  return `These ${contents.length} memories of one user overlap:

${contents.map((c, i) => `${i + 1}. ${c}`).join("\n")}

Combine them into one comprehensive memory: keep every distinct piece of information, drop repetition, and do not add anything that is not stated.

Answer JSON:
{"content": "the merged memory"}`;
}

/** A merged text for review: the chat model's when configured, else the sources' distinct sentences. */
export async function suggestMerge(sql: ProjectSql, ids: string[]): Promise<MergeSuggestion> {
  const sources = checkSources(ids, await loadMemories(sql, ids), { field: "ids", requireActive: false });
  return suggestFor(sources);
}

export async function suggestFor(sources: Memory[]): Promise<MergeSuggestion> {
  const chat = configuredChat();
  if (chat) {
    const parsed = ZMergeAnswer.safeParse(parseJsonAnswer(await chatComplete(chat, mergePrompt(sources.map((s) => s.content)), { json: true })));
    if (!parsed.success) throw new ProviderError(`Chat model's merge answer is malformed: ${parsed.error.issues[0]?.message}`);
    return { content: parsed.data.content.slice(0, 20_000), source: "chat" };
  }
  return { content: joinDistinctSentences(sources.map((s) => s.content)), source: "local" };
}
