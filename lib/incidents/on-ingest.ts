import "server-only";
import type { ProjectSql } from "../db/project-sql";
import { DetectRun, detectConversations } from "./detect";
import { capturedTurnsThatMayFire, detectWrittenTurns, type CapturedWrite, type WrittenTurn } from "./ingest-filter";

// Detection on ingest (issue 38 part 2): a writer (the messages API, imports, OTLP capture)
// names what it wrote, in one call after its write; the rules run in the background a moment
// later, never inside the write's request or transaction. Calls within DEBOUNCE_MS are
// checked together, a batch of conversations per statement set, and between batches the
// queue rests as long as the batch took, so detection takes at most half of the thread from
// the writes. What is queued lives in this process: a restart drops it (POST /incidents/scan
// finds those turns again).

const DEBOUNCE_MS = 200;
const BATCH = 20;

/** What to check of a conversation: all of it, these turns (with their questions when the writer passed them), captured turns (filtered first), or its newest n. */
type Want = { all: boolean; messages: Map<string, string | null>; captured: Map<string, CapturedWrite>; newest: number };
type Pending = { sql: ProjectSql; conversations: Map<string, Want> };

const pending = new Map<string, Pending>();
let timer: NodeJS.Timeout | null = null;
let running: Promise<void> | null = null;

/**
 * What was written: whole conversations (imports), these turns (`turns` with their questions as
 * written, the messages API: a user without memories has only the turns that can fire read,
 * lib/incidents/ingest-filter.ts; `messageIds` without them), the turns OTLP capture wrote
 * (`captured`: only those a rule may fire on are read, capturedTurnsThatMayFire), or each
 * conversation's newest n turns.
 */
export type Written = {
  conversationIds: readonly string[];
  turns?: readonly { id: string; query: string }[];
  messageIds?: readonly string[];
  captured?: readonly CapturedWrite[];
  newest?: number;
};

/** Queues the check of what was written. Returns at once; never throws. */
export function checkIncidentsSoon(sql: ProjectSql, written: Written): void {
  if (process.env.MEMSCOPE_INCIDENTS === "off" || !written.conversationIds.length) return;
  let p = pending.get(sql.projectId);
  if (!p) pending.set(sql.projectId, (p = { sql, conversations: new Map() }));
  for (const id of written.conversationIds) {
    let w = p.conversations.get(id);
    if (!w) p.conversations.set(id, (w = { all: false, messages: new Map(), captured: new Map(), newest: 0 }));
    if (written.turns) for (const t of written.turns) w.messages.set(t.id, t.query);
    if (written.messageIds) for (const m of written.messageIds) w.messages.set(m, null);
    if (written.turns || written.messageIds || written.captured) continue;
    if (written.newest) w.newest = Math.max(w.newest, written.newest);
    else w.all = true;
  }
  for (const t of written.captured ?? []) {
    let w = p.conversations.get(t.conversationId);
    if (!w) p.conversations.set(t.conversationId, (w = { all: false, messages: new Map(), captured: new Map(), newest: 0 }));
    w.captured.set(t.id, t);
  }
  if (!timer && !running) timer = setTimeout(flush, DEBOUNCE_MS);
}

/** Resolves once everything queued so far was checked (tests, benchmarks, shutdown). */
export async function incidentsIdle(): Promise<void> {
  while (timer || running || pending.size) {
    if (timer) {
      clearTimeout(timer);
      timer = null;
      void flush();
    }
    await (running ?? new Promise((r) => setTimeout(r, 10)));
  }
}

function flush() {
  timer = null;
  running = (async () => {
    while (pending.size) {
      const [projectId, p] = pending.entries().next().value as [string, Pending];
      pending.delete(projectId);
      const run = new DetectRun(p.sql);
      await keepCapturedThatMayFire(p, run);
      const entries = [...p.conversations].filter(([, w]) => w.all || w.messages.size || w.newest);
      for (let i = 0; i < entries.length; i += BATCH) {
        const t0 = Date.now();
        try {
          await checkBatch(p.sql, entries.slice(i, i + BATCH), run);
        } catch (e) {
          console.error(`[incidents] detection on ingest failed for project ${projectId}:`, e);
        }
        await new Promise((r) => setTimeout(r, Math.max(5, Date.now() - t0)));
      }
    }
  })().finally(() => {
    running = null;
    if (pending.size && !timer) timer = setTimeout(flush, DEBOUNCE_MS);
  });
  return running;
}

/**
 * The captured turns of the project's queue, all conversations at once, become turns to check
 * (their questions unknown to detectWrittenTurns, so always read) when a rule may fire on them;
 * the others are dropped unread. On failure every captured turn is checked (as without the filter).
 */
async function keepCapturedThatMayFire(p: Pending, run: DetectRun) {
  const captured = [...p.conversations.values()].flatMap((w) => [...w.captured.values()]);
  if (!captured.length) return;
  let keep: Map<string, string[]>;
  try {
    keep = await capturedTurnsThatMayFire(p.sql, captured, run);
  } catch (e) {
    console.error(`[incidents] the captured turns' filter failed for project ${p.sql.projectId}; checking them all:`, e);
    keep = new Map();
    for (const t of captured) keep.set(t.conversationId, [...(keep.get(t.conversationId) ?? []), t.id]);
  }
  for (const [id, w] of p.conversations) {
    w.captured.clear();
    for (const m of keep.get(id) ?? []) if (!w.messages.has(m)) w.messages.set(m, null);
  }
}

async function checkBatch(sql: ProjectSql, batch: [string, Want][], run: DetectRun) {
  const all = batch.filter(([, w]) => w.all).map(([id]) => id);
  const some = batch.filter(([, w]) => !w.all && w.messages.size);
  const newest = batch.filter(([, w]) => !w.all && !w.messages.size && w.newest);
  if (all.length) await detectConversations(sql, all, {}, run);
  if (some.length) await detectWrittenTurns(sql, new Map(some.map(([id, w]): [string, WrittenTurn[]] => [id, [...w.messages].map(([mid, query]) => ({ id: mid, query }))])), run);
  if (newest.length) await detectConversations(sql, newest.map(([id]) => id), { newest: Math.max(...newest.map(([, w]) => w.newest)) }, run);
}
