import type { ProjectSql } from "./project-sql";

// Statements of a transaction whose results nobody reads (INSERTs and UPDATEs without
// RETURNING), sent without waiting for their answers: the database runs them while this thread
// prepares the next statement, instead of each side waiting for the other (an OTLP request's
// turns, prompts and spans: the database's time and the JavaScript between statements were
// about equal, and ran one after the other).
//
// One statement is on the connection at a time (node-postgres deprecates queueing a query on a
// busy client): every statement of the transaction, read or write, goes through one queue in
// the order it was asked for, so a read runs after the writes asked for before it and sees them.
//
// A failed statement aborts the transaction, so nothing after it is sent: those reject with the
// first failure, which `settle()` throws too (the one that says what went wrong, not "current
// transaction is aborted"). A caller that catches anything calls `settle()` first (settleOnError).

export type WriteBehind = {
  /** The transaction for reads: each waits for the statements asked for before it. */
  readonly tx: ProjectSql;
  /** The transaction for writes that return nothing: `query` queues the statement and answers [] at once. */
  readonly sql: ProjectSql;
  /** Waits for every statement asked for so far; throws the first failure among them. */
  settle(): Promise<void>;
};

export function writeBehind(tx: ProjectSql): WriteBehind {
  let tail: Promise<unknown> = Promise.resolve();
  let failure: { error: unknown } | null = null;
  const enqueue = <T>(text: string, params?: unknown[]): Promise<T[]> => {
    const sent = tail.then(() => (failure ? Promise.reject(failure.error) : tx.query<T>(text, params)));
    tail = sent.catch((error: unknown) => {
      failure ??= { error };
    });
    return sent;
  };
  const over = (query: ProjectSql["query"]): ProjectSql => ({
    projectId: tx.projectId,
    actorLabel: tx.actorLabel,
    async exec() {
      throw new Error("writeBehind: use query");
    },
    query,
    async transaction() {
      throw new Error("writeBehind: already in a transaction");
    },
  });
  return {
    tx: over(enqueue),
    sql: over(async <T>(text: string, params?: unknown[]): Promise<T[]> => {
      if (/\bRETURNING\b/i.test(text) || !/^\s*(INSERT|UPDATE|DELETE)\b/i.test(text)) throw new Error("writeBehind: only writes that return nothing are sent behind");
      void enqueue(text, params).catch(() => {});
      return [];
    }),
    async settle() {
      for (let seen = tail; ; seen = tail) {
        await seen;
        if (seen === tail) break;
      }
      if (failure) throw failure.error;
    },
  };
}

/** The same interface, each statement awaited as usual (the embedded database: see STATEMENT_SIZES in store-captures.ts). */
export function writeThrough(tx: ProjectSql): WriteBehind {
  return { tx, sql: tx, settle: async () => {} };
}

/** Runs `fn`, then settles `behind`; when `fn` fails, a write's own failure (the cause of an aborted transaction) wins. */
export async function settleOnError<T>(behind: WriteBehind, fn: () => Promise<T>): Promise<T> {
  let out: T;
  try {
    out = await fn();
  } catch (e) {
    await behind.settle();
    throw e;
  }
  await behind.settle();
  return out;
}
