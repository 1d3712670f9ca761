import { UUID_NIL } from "./uuid-nil";

export type ThreadRow = { id: string; parentMessageId: string | null };

/**
 * Dify's extract_thread_messages. `rows` are newest first. The newest row is always
 * taken; each older row is taken when it is the parent being followed, or when that
 * parent is UUID_NIL. A taken row with no parent (null or "") ends the walk.
 * Returns the thread newest first.
 */
export function extractThread<T extends ThreadRow>(rows: Iterable<T>): T[] {
  const thread: T[] = [];
  let next: string | null = null;
  for (const row of rows) {
    if (!row.parentMessageId) {
      // Dify takes a parentless row unconditionally: it starts a (regenerated) thread.
      thread.push(row);
      break;
    }
    if (next === null) {
      thread.push(row);
      next = row.parentMessageId;
    } else if (next === row.id || next === UUID_NIL) {
      thread.push(row);
      next = row.parentMessageId;
    }
  }
  return thread;
}

/**
 * The same walk as an incremental state machine, so a caller can feed rows page by
 * page from the database and stop reading as soon as the thread ends.
 */
export class ThreadWalker<T extends ThreadRow> {
  readonly thread: T[] = [];
  done = false;
  private next: string | null = null;

  push(row: T): boolean {
    if (this.done) return false;
    if (!row.parentMessageId) {
      this.thread.push(row);
      this.done = true;
      return false;
    }
    if (this.next === null || this.next === row.id || this.next === UUID_NIL) {
      this.thread.push(row);
      this.next = row.parentMessageId;
    }
    return true;
  }
}
