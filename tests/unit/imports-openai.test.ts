import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseImportText } from "@/lib/imports/parse-import";

const text = fs.readFileSync(path.join(__dirname, "../fixtures/imports/openai.jsonl"), "utf8");

describe("OpenAI chat format parser", () => {
  const parsed = parseImportText(text, undefined);

  it("is detected from JSON lines and pairs user and assistant messages into turns", () => {
    expect(parsed.format).toBe("openai");
    expect(parsed.conversations).toHaveLength(2);
    const eggs = parsed.conversations[0];
    expect(eggs.turns.map((t) => [t.query, t.answer])).toEqual([
      ["How long do I boil an egg for a runny yolk?", "Six minutes from boiling water, then cold water."],
      ["And hard-boiled?", "Ten to eleven minutes."],
    ]);
    expect(eggs.record).toBe("line 1");
    expect(eggs.name).toBe("How long do I boil an egg for a runny yolk?");
  });

  it("keeps system messages on the conversation", () => {
    expect(parsed.conversations[0].model_config).toEqual({ source: "openai", system_messages: ["You are a concise cooking assistant."] });
    expect(parsed.conversations[1].model_config).toMatchObject({ model: "gpt-4o" });
  });

  it("puts tool calls and their results in metadata.tool_calls, and images in file parts", () => {
    const [turn] = parsed.conversations[1].turns;
    expect(turn.query).toBe("What is in this photo, and what is the weather there?");
    expect(turn.answer).toBe("A harbour in Porto; it is 17 degrees and clear there.");
    expect(turn.metadata?.tool_calls).toEqual([{ id: "call_1", name: "get_weather", arguments: '{"city": "Porto"}', result: '{"temp_c": 17, "sky": "clear"}' }]);
    expect(turn.files).toEqual([{ type: "image", transfer_method: "remote_url", url: "https://images.example.com/harbour.jpg", upload_file_id: null, belongs_to: "user" }]);
  });

  it("names the line and field of each bad record; the good lines still parse", () => {
    expect(parsed.problems).toHaveLength(2);
    expect(parsed.problems[0]).toMatchObject({ record: "line 3" });
    expect(parsed.problems[0].message).toMatch(/not JSON/);
    expect(parsed.problems[1]).toMatchObject({ record: "line 4", field: "messages[1].role" });
  });

  it("derives the same ids on every run (re-imports find them), different ids for different lines", () => {
    const again = parseImportText(text, undefined);
    expect(again.conversations.map((c) => c.id)).toEqual(parsed.conversations.map((c) => c.id));
    expect(again.conversations[0].turns.map((t) => t.id)).toEqual(parsed.conversations[0].turns.map((t) => t.id));
    expect(parsed.conversations[0].id).not.toBe(parsed.conversations[1].id);
  });

  it("reads a JSON array of conversations and a tool result with no call as a problem", () => {
    const doc = [
      { messages: [{ role: "user", content: "a" }, { role: "assistant", content: "b" }] },
      { messages: [{ role: "user", content: "a" }, { role: "tool", tool_call_id: "x", content: "r" }] },
    ];
    const p = parseImportText(JSON.stringify(doc), undefined);
    expect(p.conversations).toHaveLength(1);
    expect(p.problems).toEqual([{ record: "[1]", field: "messages[1].tool_call_id", message: "answers no earlier assistant tool call of this turn" }]);
  });
});
