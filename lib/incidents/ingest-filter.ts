import "server-only";
import type { ProjectSql } from "../db/project-sql";
import { presetFor, type ModelPreset } from "../models/model-presets";
import type { ProfileVersion } from "../profiles/schemas";
import { DEFAULT_SETTINGS } from "../replay/replay-settings";
import { type ConversationRef, type DetectResult, DetectRun, detectKnownConversations } from "./detect";
import { backReferencePhrase } from "./text";

// Detection on ingest of turns whose questions the writer passed (the messages API). Of the five
// rules, three need memories of the end user (missed, restated, stale); without any, a turn can
// fire only on its own text: the dropped-reference rule needs a back-reference phrase in the
// question, the context-window rule a question over the window less the reserved output (no
// captured prompt: the replayed prompt's size is the question's stored token count). So for such
// a user only the turns that pass those two cheap tests are read and checked; for a bulk import
// that is usually none, and the batch costs one statement (bench:import, docs/benchmarks.md
// section 56). A batch with a captured prompt on a written turn, or a user with memories, is checked
// whole as before. The filter never drops a turn the rules would fire on
// (tests/unit/incident-ingest-filter.test.ts).

/** A written turn: its id and the question as written (null: unknown, always checked). */
export type WrittenTurn = { id: string; query: string | null };

/**
 * The smallest prompt, in tokens, that can exceed the context window at any time for this app:
 * over its profile versions and the default settings (before its first version), the model's
 * window (saved presets first) less the reserved output tokens.
 */
export function windowFloor(versions: readonly ProfileVersion[], presets: readonly ModelPreset[]): number {
  let floor = Infinity;
  for (const s of [DEFAULT_SETTINGS, ...versions.map((v) => v.settings)]) floor = Math.min(floor, presetFor(s.model, presets).context_window - s.reserved_output_tokens);
  return floor;
}

/**
 * Whether a turn of a user without memories, with no captured prompt, can fire a rule: an empty
 * question fires none; a back-reference phrase may fire the dropped-reference rule; a question of
 * more UTF-8 bytes than `floor` may be over the window (a BPE token is at least one byte, so the
 * stored counts, in either encoding, are at most the question's bytes).
 */
export function mayFireWithoutMemories(query: string, floor: number): boolean {
  if (!query.trim()) return false;
  // 3 bytes per UTF-16 unit at most: the exact length only for questions that may be that long.
  if (query.length * 3 > floor && Buffer.byteLength(query, "utf8") > floor) return true;
  return backReferencePhrase(query) !== null;
}

/** A turn OTLP capture wrote (lib/capture/store-captures.ts, writtenTurnsOf): question (null: unknown), the span's input tokens and request model. */
export type CapturedWrite = { id: string; conversationId: string; query: string | null; inputTokens: number | null; model: string | null };

/**
 * Whether a captured turn of a user without memories can fire a rule: an empty question fires
 * none; a back-reference phrase may fire the dropped-reference rule (it reads the captured
 * prompt and the thread); the context-window rule compares the span's input tokens with the
 * window of its request model (else the profile's) less the reserved output of the profile in
 * force at the turn: with more tokens than the smallest such limit over the app's profile
 * versions and the defaults, it may fire (then the turn is read and the rule decides, exactly).
 */
export function capturedMayFireWithoutMemories(t: CapturedWrite, versions: readonly ProfileVersion[], presets: readonly ModelPreset[]): boolean {
  if (t.query === null) return true;
  if (!t.query.trim()) return false;
  if (t.inputTokens !== null) {
    for (const s of [DEFAULT_SETTINGS, ...versions.map((v) => v.settings)]) {
      if (t.inputTokens > presetFor(t.model ?? s.model, presets).context_window - s.reserved_output_tokens) return true;
    }
  }
  return backReferencePhrase(t.query) !== null;
}

/**
 * Of the turns an OTLP request wrote, those a rule may fire on, by conversation: all of a user's
 * with memories (the memory rules read every turn), and of the others only those
 * capturedMayFireWithoutMemories keeps; a deleted conversation's none. One statement for all the
 * conversations (their end users' memories), the app profiles and the model presets (once per
 * run): a 512-span batch of ordinary turns across 250 conversations reads no turn at all (before:
 * each conversation's newest turns with their texts, docs/benchmarks.md section 65).
 */
export async function capturedTurnsThatMayFire(sql: ProjectSql, written: readonly CapturedWrite[], run = new DetectRun(sql)): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  if (!written.length) return out;
  const convs = await sql.query<ConversationRef>(
    `SELECT c.id, c.app_id, c.end_user_id, EXISTS (SELECT 1 FROM memories x WHERE x.project_id = c.project_id AND x.user_id = c.end_user_id) AS has_memories
       FROM conversations c WHERE c.project_id = $1 AND c.id = ANY($2::uuid[]) AND c.deleted_at IS NULL`,
    [sql.projectId, [...new Set(written.map((t) => t.conversationId))]],
  );
  const byId = new Map(convs.map((c) => [c.id, c]));
  run.preload(convs.filter((c) => !c.has_memories).map((c) => c.app_id));
  let presets: ModelPreset[] | null = null;
  for (const t of written) {
    const c = byId.get(t.conversationId);
    if (!c) continue;
    if (!c.has_memories) {
      presets ??= await run.modelPresets();
      if (!capturedMayFireWithoutMemories(t, await run.versions(c.app_id), presets)) continue;
    }
    const list = out.get(c.id);
    if (list) list.push(t.id);
    else out.set(c.id, [t.id]);
  }
  return out;
}

/**
 * Checks written turns of these conversations (each conversation's turns, oldest first): all of
 * a conversation whose user has memories or which holds a captured prompt; of the others, only
 * those mayFireWithoutMemories keeps. Answers as detectConversations does (turns: those checked).
 */
export async function detectWrittenTurns(sql: ProjectSql, written: ReadonlyMap<string, readonly WrittenTurn[]>, run = new DetectRun(sql)): Promise<DetectResult> {
  if (!written.size) return { turns: 0, found: 0, findings: [] };
  const convs = await sql.query<ConversationRef & { has_captures: boolean }>(
    `SELECT c.id, c.app_id, c.end_user_id,
            EXISTS (SELECT 1 FROM memories x WHERE x.project_id = c.project_id AND x.user_id = c.end_user_id) AS has_memories,
            EXISTS (SELECT 1 FROM captured_spans s WHERE s.project_id = c.project_id AND s.message_id = ANY($3::uuid[])) AS has_captures
       FROM conversations c WHERE c.project_id = $1 AND c.id = ANY($2::uuid[]) AND c.deleted_at IS NULL`,
    // The rules read only the judged turn's own captured prompt, so a capture matters only on a
    // written turn: looked up by the primary key (project_id, message_id), any written turn's
    // making every conversation of the batch checked whole (conservative, never wrong).
    [sql.projectId, [...written.keys()], [...written.values()].flatMap((ts) => ts.map((t) => t.id))],
  );
  const ids = new Set<string>();
  const checked: ConversationRef[] = [];
  let presets: ModelPreset[] | null = null;
  for (const c of convs) {
    const turns = written.get(c.id) ?? [];
    let keep: readonly WrittenTurn[] = turns;
    if (!c.has_memories && !c.has_captures) {
      presets ??= await run.modelPresets();
      const floor = windowFloor(await run.versions(c.app_id), presets);
      keep = turns.filter((t) => t.query === null || mayFireWithoutMemories(t.query, floor));
    }
    if (!keep.length) continue;
    for (const t of keep) ids.add(t.id);
    checked.push({ id: c.id, app_id: c.app_id, end_user_id: c.end_user_id, has_memories: c.has_memories });
  }
  if (!checked.length) return { turns: 0, found: 0, findings: [] };
  return detectKnownConversations(sql, checked, { messageIds: ids }, run);
}
