import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { difyRoots } from "@/lib/imports/dify-roots";
import { parseImportText } from "@/lib/imports/parse-import";
import type { ImportConversation } from "@/lib/imports/types";
import { extractThread } from "@/lib/threads/extract-thread";
import { UUID_NIL } from "@/lib/threads/uuid-nil";

// Imported trees with several roots, read by Dify's walk exactly as Memscope runs it
// (lib/threads/extract-thread.ts): for every leaf, the rows up to it newest first must
// give the leaf's path to its root, nothing of another branch.

const FIX = path.join(__dirname, "../fixtures/imports");
const parse = (p: string) => parseImportText(fs.readFileSync(path.join(FIX, p), "utf8"), undefined).conversations[0];

/** Rows as the walk reads them: by time then write order, newest first, none newer than the leaf. */
function walkFrom(conv: ImportConversation, leaf: string): string[] {
  const rows = conv.turns.map((t, seq) => ({ id: t.id, parentMessageId: t.parent_message_id ?? null, at: Date.parse(t.created_at!), seq }));
  rows.sort((a, b) => b.at - a.at || b.seq - a.seq);
  const from = rows.findIndex((r) => r.id === leaf);
  return extractThread(rows.slice(from)).map((r) => r.id);
}

/** The leaf's path to its root in the source tree (parents that are turns). */
function pathToRoot(conv: ImportConversation, leaf: string): string[] {
  const byId = new Map(conv.turns.map((t) => [t.id, t]));
  const out: string[] = [];
  for (let t = byId.get(leaf); t; t = t.parent_message_id ? byId.get(t.parent_message_id) : undefined) out.push(t.id);
  return out;
}

function leaves(conv: ImportConversation): string[] {
  const parents = new Set(conv.turns.map((t) => t.parent_message_id));
  return conv.turns.filter((t) => !parents.has(t.id)).map((t) => t.id);
}

describe("imported roots under Dify's thread walk", () => {
  for (const [name, file] of [["ChatGPT (a regenerated first answer, the active branch under the later root)", "chatgpt/conversations.json"], ["Claude.ai (a retried first answer, branches under the original)", "claude/conversations.json"]]) {
    it(`${name}: every leaf's thread is its own branch`, () => {
      const conv = parse(file);
      expect(leaves(conv)).toHaveLength(3);
      for (const leaf of leaves(conv)) expect(walkFrom(conv, leaf), leaf).toEqual(pathToRoot(conv, leaf));
    });
  }

  it("the oldest turn, a root, gets UUID_NIL; later roots the conversation's id; ties of time go by write order; untimed turns come last", () => {
    const t = (created_at: string | undefined, parent: string | null = null) => ({ parent_message_id: parent as string | null | undefined, created_at });
    expect(difyRoots([t("2026-01-02T00:00:00Z"), t("2026-01-01T00:00:00Z"), t("2026-01-03T00:00:00Z", "x")], "R").map((x) => x.parent_message_id)).toEqual(["R", UUID_NIL, "x"]);
    expect(difyRoots([t("2026-01-01T00:00:00Z"), t("2026-01-01T00:00:00Z")], "R").map((x) => x.parent_message_id)).toEqual([UUID_NIL, "R"]);
    expect(difyRoots([t(undefined), t("2026-01-01T00:00:00Z")], "R").map((x) => x.parent_message_id)).toEqual(["R", UUID_NIL]);
    // The oldest turn is not a root (a child timed before its root): no root may take UUID_NIL.
    expect(difyRoots([t("2026-01-02T00:00:00Z"), t("2026-01-01T00:00:00Z", "y")], "R").map((x) => x.parent_message_id)).toEqual(["R", "y"]);
  });
});
