import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DomainError } from "@/lib/errors/domain-errors";
import { langgraphMemories, storeRowsFromDump } from "@/lib/imports/parse-langgraph";
import { parseAgentScope } from "@/lib/imports/parse-agentscope";
import { parseImportText } from "@/lib/imports/parse-import";
import { parseLetta } from "@/lib/imports/parse-letta";
import { parseMemoryFiles } from "@/lib/imports/parse-memory-dir";
import { parseUploadOffThread } from "@/lib/imports/parse-upload-off-thread";

// Issue 37: uploads read whole (a LangGraph dump, a memory folder's or AgentScope's files, Letta,
// Mem0, Dify API and OpenAI JSON) are parsed in a worker thread, their records handed back in
// groups. What comes back is what the same parser gives inline; a limit passed in the worker is
// the same 413 as thrown here.

const FIX = path.join(__dirname, "../fixtures/imports");
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "memscope-parse-upload-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const tmp = (name: string, text: string) => {
  const f = path.join(dir, name);
  fs.writeFileSync(f, text);
  return f;
};
/** Every file under `root`, by its path relative to it. */
const tree = (root: string, under = ""): [string, Uint8Array][] =>
  fs.readdirSync(path.join(root, under), { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? tree(root, path.join(under, e.name)) : [[path.join(under, e.name), new Uint8Array(fs.readFileSync(path.join(root, under, e.name)))] as [string, Uint8Array]]));

describe("parseUploadOffThread", () => {
  it("a LangGraph dump: the inline parse's memories and problems", async () => {
    const text = fs.readFileSync(path.join(FIX, "langgraph-store.sql"), "utf8");
    const d = storeRowsFromDump(text);
    const inline = langgraphMemories(d.rows, { app_id: "lg" }, d.problems);
    expect(inline.memories.length).toBeGreaterThan(0);
    expect(await parseUploadOffThread({ format: "langgraph", file: tmp("store.sql", text), opts: { app_id: "lg" } })).toEqual(inline);
  });

  it("Mem0 and OpenAI JSON lines: the inline parse's records (detected when not named)", async () => {
    const mem0 = fs.readFileSync(path.join(FIX, "mem0.json"), "utf8");
    expect(await parseUploadOffThread({ format: "json", file: tmp("mem0.json", mem0), opts: {} })).toEqual(parseImportText(mem0, undefined, {}));
    const openai = fs.readFileSync(path.join(FIX, "openai.jsonl"), "utf8");
    const inline = parseImportText(openai, "openai", { app_id: "x" });
    expect(inline.conversations.length).toBeGreaterThan(0);
    expect(await parseUploadOffThread({ format: "json", file: tmp("openai.jsonl", openai), named: "openai", opts: { app_id: "x" } })).toEqual(inline);
  });

  it("memory-folder, AgentScope and Letta files: the inline parse's records", async () => {
    const memories = new Map(tree(path.join(FIX, "memories")));
    expect(await parseUploadOffThread({ format: "memory-dir", files: new Map(memories), symlinks: new Map(), opts: {} })).toEqual(parseMemoryFiles(memories, { maxRecords: 100_000, symlinks: new Map() }));
    const scope = new Map(tree(path.join(FIX, "agentscope")));
    const inline = parseAgentScope(scope, { maxRecords: 100_000 });
    expect(inline.conversations.length).toBeGreaterThan(0);
    expect(await parseUploadOffThread({ format: "agentscope", files: new Map(scope), opts: {} })).toEqual(inline);
    const af = fs.readFileSync(path.join(FIX, "letta/concierge.af"), "utf8");
    expect(await parseUploadOffThread({ format: "letta", files: new Map([["concierge.af", new Uint8Array(Buffer.from(af))]]), opts: {} })).toEqual(parseLetta(JSON.parse(af), "concierge.af", {}));
  });

  it("a conversation larger than a group comes back whole, its turns in order", async () => {
    const big = "x".repeat(3000);
    const lines = Array.from({ length: 2000 }, (_, i) => JSON.stringify({ id: `m${i}`, name: i % 2 ? "assistant" : "user", role: i % 2 ? "assistant" : "user", content: [{ type: "text", text: `${i} ${big}` }], metadata: {}, created_at: "2026-01-01T00:00:00Z" }));
    const files = new Map([["sessions/s1/context.jsonl", new Uint8Array(Buffer.from(lines.join("\n")))], ["sessions/s2/context.jsonl", new Uint8Array(Buffer.from(lines.slice(0, 4).join("\n")))]]);
    const inline = parseAgentScope(files, { maxRecords: 100_000 });
    expect(inline.conversations[0].turns.length).toBe(1000); // ~6 MB: several groups of turns
    expect(await parseUploadOffThread({ format: "agentscope", files: new Map(files), opts: {} })).toEqual(inline);
  });

  it("a limit passed in the worker is the 413 naming it; a file that is not JSON the 422 naming the body", async () => {
    const deep = tmp("deep.af", `${"[".repeat(300)}${"]".repeat(300)}`);
    const e = await parseUploadOffThread({ format: "letta", file: deep, opts: {} }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(DomainError);
    expect(e).toMatchObject({ kind: "too_large", code: "import_limit_exceeded", details: [{ field: "nesting_depth" }] });
    const bad = await parseUploadOffThread({ format: "json", file: tmp("bad.json", "{nope\n[also"), opts: {} }).catch((x: unknown) => x);
    expect(bad).toMatchObject({ kind: "validation", code: "invalid_import_file", details: [{ field: "body" }] });
  });
});
