import { describe, expect, it } from "vitest";
import { ImportRun } from "@/lib/imports/run-import";
import { parseImportText } from "@/lib/imports/parse-import";
import { textsCountedHere } from "@/lib/tokens/count-tokens";
import { useRecordedDatabase } from "../helpers/recorded-database";

// An import job runs on the server's thread beside the requests polling it. Counting a small
// batch's tokens inline made that thread build both tiktoken encoders first (3 s here, more on a
// loaded machine): past the server's 5 s keep-alive timeout, the sockets of the clients polling
// the job were closed under their next request (ECONNRESET). The job counts in the worker pool.

const rec = useRecordedDatabase();

describe("ImportRun", () => {
  it("counts a small import's tokens off this thread: no text is counted here, the counts are exact", async () => {
    // Not "no encoder loaded": the unit phase runs files in one process (--no-isolate), and
    // another file may have built the encoders in this thread before.
    const before = textsCountedHere();
    const parsed = parseImportText(JSON.stringify({ messages: [{ role: "user", content: "Hello there" }, { role: "assistant", content: "Hi! How can I help?" }] }), "openai", {});
    const run = new ImportRun(rec.writer(), { dryRun: false });
    await run.add(parsed);
    expect(run.counts).toMatchObject({ conversations: 1, turns: 1, failed: 0 });
    expect(textsCountedHere()).toBe(before);
    const [m] = await rec.db.sql.query<{ answer_tokens: number }>(`SELECT answer_tokens FROM messages WHERE query = 'Hello there'`);
    expect(m.answer_tokens).toBe(7); // o200k_base: "Hi", "!", " How", " can", " I", " help", "?"
  });
});
