import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { strToU8, zipSync } from "fflate";
import { describe, expect, it, vi } from "vitest";
import { JsonArraySplitter, JsonArraySyntaxError } from "@/lib/streams/json-array-splitter";
import { parseAgentsSqlite } from "@/lib/imports/parse-openai-agents";
import { readZip, removeStaleUploads, walkZip } from "@/lib/imports/upload-file";
import { parseMemoryFiles } from "@/lib/imports/parse-memory-dir";
import { LIMITS, limitsTable } from "@/lib/imports/upload-limits";
import { bombZip, rawZip, sqliteFile } from "../helpers/hostile-files";

// The bounds of lib/imports/upload-limits.ts, each where it is enforced: the zip walker, the
// element splitter, the SQLite worker, the start's clean-up of temporary uploads. The API suite
// (tests/api/hostile-uploads.test.ts) sends the attacks themselves to a server.

const MB = 1024 * 1024;

function tempFile(bytes: Uint8Array): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "limits-"));
  const f = path.join(dir, "upload");
  fs.writeFileSync(f, bytes);
  return f;
}

describe("import limits", () => {
  it("the README's table is the module's table", () => {
    const readme = fs.readFileSync(path.join(__dirname, "../../README.md"), "utf8");
    expect(readme).toContain(limitsTable());
  });

  it("a zip entry is refused as soon as it unpacks past entry_bytes, before it is held whole", async () => {
    const f = tempFile(bombZip("memories/a.md", LIMITS.entry.value * 3));
    await expect(readZip(f)).rejects.toMatchObject({ kind: "too_large", code: "import_limit_exceeded", details: [{ field: "entry_bytes" }] });
    // What reaches the caller: never past the limit, in chunks of one 4 KB push's output at most.
    let held = 0;
    let largest = 0;
    await expect(
      walkZip(f, {
        pick: () => true,
        write: (_n, c) => {
          held += c.length;
          largest = Math.max(largest, c.length);
        },
        total: "wholeUnpacked",
        entry: "entry",
      }),
    ).rejects.toMatchObject({ details: [{ field: "entry_bytes" }] });
    expect(held).toBeLessThanOrEqual(LIMITS.entry.value);
    expect(largest).toBeLessThan(5 * MB);
  });

  it("a zip listing more entries than the limit is refused before any is unpacked", async () => {
    const files: Record<string, Uint8Array> = {};
    for (let i = 0; i <= LIMITS.entries.value; i++) files[`f${i}.md`] = strToU8("x");
    const f = tempFile(zipSync(files, { level: 0 }));
    let unpacked = 0;
    await expect(walkZip(f, { pick: () => true, write: () => unpacked++, total: "wholeUnpacked", entry: "entry" })).rejects.toMatchObject({ details: [{ field: "entries" }] });
    expect(unpacked).toBe(0);
  });

  it("an unknown compression method is a 422 naming the entry and the method", async () => {
    const f = tempFile(rawZip([{ name: "a.md", method: 12, data: Buffer.from("BZh91AY"), size: 7 }]));
    await expect(readZip(f)).rejects.toMatchObject({ kind: "validation", code: "invalid_import_file", details: [{ field: "a.md", message: expect.stringContaining("compression method 12") }] });
  });

  it("the splitter refuses an element over maxElementBytes or nested over maxDepth, whatever the chunks", () => {
    const big = new JsonArraySplitter({ maxElementBytes: 100 });
    const chunks = ["[1,", '{"a":"', "x".repeat(60), "x".repeat(60), '"}]'];
    expect(() => chunks.forEach((c) => big.write(Buffer.from(c)))).toThrow(expect.objectContaining({ kind: "too_large", index: 1 }));
    const deep = new JsonArraySplitter({ maxDepth: 3 });
    expect(() => deep.write(Buffer.from("[[[[[1]]]]]"))).toThrow(JsonArraySyntaxError);
    const many = new JsonArraySplitter({ maxContainers: 3 });
    expect(() => many.write(Buffer.from('[{"a":[1],"b":{}}, {"c":[[],[]]}]'))).toThrow(expect.objectContaining({ kind: "too_many_values", index: 1 }));
    const ok = new JsonArraySplitter({ maxDepth: 3, maxElementBytes: 100 });
    const got: unknown[] = [];
    ok.onValue = (v) => got.push(v);
    ok.write(Buffer.from('[[[1]], {"a": [2]}]'));
    ok.end();
    expect(got).toEqual([[[1]], { a: [2] }]);
    // Scanning only: the elements are found, none is parsed or held.
    const scan = new JsonArraySplitter({ scanOnly: true });
    const seen: unknown[] = [];
    scan.onValue = (v, i) => seen.push([v, i]);
    scan.write(Buffer.from('[{"a":1},[2],"x"]'));
    expect(seen).toEqual([[undefined, 0], [undefined, 1], [undefined, 2]]);
  });

  it("a memory file with more list items than the records limit is refused before it is parsed; list lines in a code fence do not count", () => {
    const many = strToU8(Array.from({ length: 1001 }, (_, i) => `- item ${i}`).join("\n"));
    const t = performance.now();
    expect(() => parseMemoryFiles(new Map([["memories/u/MEMORY.md", many]]), { maxRecords: 1000 })).toThrow(expect.objectContaining({ code: "import_limit_exceeded", details: [expect.objectContaining({ field: "records" })] }));
    expect(performance.now() - t).toBeLessThan(1000);
    const fenced = strToU8(["- one", "```", ...Array.from({ length: 2000 }, (_, i) => `- code ${i}`), "```", "- two"].join("\n"));
    expect(parseMemoryFiles(new Map([["memories/u/MEMORY.md", fenced]]), { maxRecords: 1000 }).memories.map((m) => m.content.slice(0, 3))).toEqual(["one", "two"]);
  });

  it("SQLite: a generated column is refused before it is read; no id column is a 422 naming it", async () => {
    const generated = await sqliteFile(
      "CREATE TABLE m (rid INTEGER PRIMARY KEY, session_id TEXT, message_data TEXT, id BLOB GENERATED ALWAYS AS (zeroblob(100000000)) VIRTUAL)",
      "INSERT INTO m (session_id, message_data) VALUES ('s', '{}')",
    );
    await expect(parseAgentsSqlite(generated)).rejects.toMatchObject({ kind: "validation", details: [{ field: "m.id", message: expect.stringContaining("generated or hidden") }] });
    const noId = await sqliteFile("CREATE TABLE m (session_id TEXT, message_data TEXT)", "INSERT INTO m VALUES ('s', '{}')");
    await expect(parseAgentsSqlite(noId)).rejects.toMatchObject({ kind: "validation", details: [{ field: "m.id" }] });
  });

  it("SQLite: 25 000 rows come back from the worker a group at a time, every row in its session and order", async () => {
    // 5 sessions of 2 500 question-answer pairs, inserted interleaved: the worker reads them by session and id.
    const db = await sqliteFile(
      "CREATE TABLE m (id INTEGER PRIMARY KEY, session_id TEXT, message_data TEXT)",
      `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 24999)
       INSERT INTO m (session_id, message_data) SELECT 's' || (i % 5),
         CASE WHEN (i / 5) % 2 = 0 THEN json_object('role', 'user', 'content', 'q' || (i / 10)) ELSE json_object('role', 'assistant', 'content', 'a' || (i / 10)) END FROM n`,
    );
    const p = await parseAgentsSqlite(db);
    expect(p.problems).toEqual([]);
    expect(p.conversations.map((c) => c.externalId).sort()).toEqual(["s0", "s1", "s2", "s3", "s4"]);
    for (const c of p.conversations) {
      expect(c.turns.map((t) => [t.query, t.answer])).toEqual(Array.from({ length: 2500 }, (_, k) => [`q${k}`, `a${k}`]));
    }
  }, 60_000);

  it("SQLite: a value over sqlite_value_bytes is a 413, measured with length() before it is fetched", async () => {
    // LIMITS is read when its module loads: loaded afresh with the override, as a server starts with it.
    vi.stubEnv("MEMSCOPE_IMPORT_MAX_SQLITE_VALUE_BYTES", "1000");
    vi.resetModules();
    try {
      const fresh = await import("@/lib/imports/parse-openai-agents");
      const big = await sqliteFile("CREATE TABLE m (id INTEGER PRIMARY KEY, session_id TEXT, message_data TEXT)", `INSERT INTO m (session_id, message_data) VALUES ('s', '${"x".repeat(5000)}')`);
      await expect(fresh.parseAgentsSqlite(big)).rejects.toMatchObject({ kind: "too_large", code: "import_limit_exceeded", details: [{ field: "sqlite_value_bytes" }] });
      const small = await sqliteFile("CREATE TABLE m (id INTEGER PRIMARY KEY, session_id TEXT, message_data TEXT)", `INSERT INTO m (session_id, message_data) VALUES ('s', '{"role":"user","content":"hi"}')`);
      expect((await fresh.parseAgentsSqlite(small)).conversations).toHaveLength(1);
    } finally {
      vi.unstubAllEnvs();
      vi.resetModules();
    }
  });

  it("at start, temporary uploads of processes that are gone are removed; a live process's are kept", () => {
    const dir = path.join(os.tmpdir(), "memscope-imports");
    fs.mkdirSync(dir, { recursive: true });
    const dead = spawnSync(process.execPath, ["-e", "console.log(process.pid)"], { encoding: "utf8" });
    const deadPid = Number(dead.stdout.trim());
    const stale = path.join(dir, `${deadPid}-stale-test`);
    const mine = path.join(dir, `${process.pid}-live-test`);
    const legacy = path.join(dir, "0f0e0d0c-legacy-test");
    for (const f of [stale, mine, legacy]) fs.writeFileSync(f, "x");
    expect(removeStaleUploads()).toBeGreaterThanOrEqual(2);
    expect(fs.existsSync(stale)).toBe(false);
    expect(fs.existsSync(legacy)).toBe(false);
    expect(fs.existsSync(mine)).toBe(true);
    fs.rmSync(mine);
  });
});
