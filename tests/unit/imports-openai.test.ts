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

  // What OpenAI's own format refuses (openai-python, ChatCompletionAssistantMessageParam and
  // ChatCompletionMessageFunctionToolCallParam): content is required unless tool_calls or
  // function_call is given; function.arguments is a required string.
  const lines = (...convs: unknown[]) => convs.map((c) => JSON.stringify(c)).join("\n");
  const user = { role: "user", content: "weather?" };
  const call = (args: unknown) => ({ id: "c1", type: "function", function: { name: "get_weather", ...(args === undefined ? {} : { arguments: args }) } });

  it("refuses an assistant message with no content and no tool calls, naming line and field", () => {
    const p = parseImportText(
      lines(
        { messages: [user, { role: "assistant", content: null }] },
        { messages: [user, { role: "assistant" }] },
        { messages: [user, { role: "assistant", content: null, tool_calls: [] }] },
        { messages: [user, { role: "assistant", content: null, tool_calls: [call('{"city":"Porto"}')] }] },
        { messages: [user, { role: "assistant", content: null, function_call: { name: "get_weather", arguments: "{}" } }] },
        { messages: [user, { role: "assistant", content: "" }] },
      ),
      "openai",
    );
    const missing = { field: "messages[1].content", message: "missing (an assistant message without tool_calls needs content)" };
    expect(p.problems).toEqual([
      { record: "line 1", ...missing },
      { record: "line 2", ...missing },
      { record: "line 3", ...missing },
    ]);
    // A tool call, a legacy function_call or an empty string is an answer the format allows.
    expect(p.conversations.map((c) => c.record)).toEqual(["line 4", "line 5", "line 6"]);
  });

  it("refuses a tool call whose function.arguments is not a string, naming line and field", () => {
    const p = parseImportText(
      lines(
        { messages: [user, { role: "assistant", content: null, tool_calls: [call({ city: "Porto" })] }] },
        { messages: [user, { role: "assistant", content: null, tool_calls: [call('{"city":"Porto"}'), call(42)] }] },
        { messages: [user, { role: "assistant", content: null, tool_calls: [call(undefined)] }] },
        { messages: [user, { role: "assistant", content: null, function_call: { name: "f", arguments: { a: 1 } } }] },
        { messages: [user, { role: "assistant", content: null, tool_calls: [call("not json, kept as the model wrote it")] }] },
      ),
      "openai",
    );
    expect(p.problems).toEqual([
      { record: "line 1", field: "messages[1].tool_calls[0].function.arguments", message: "must be a string of JSON text, got object" },
      { record: "line 2", field: "messages[1].tool_calls[1].function.arguments", message: "must be a string of JSON text, got number" },
      { record: "line 3", field: "messages[1].tool_calls[0].function.arguments", message: "missing (a string of JSON text is required)" },
      { record: "line 4", field: "messages[1].function_call.arguments", message: "must be a string of JSON text, got object" },
    ]);
    expect(p.conversations).toHaveLength(1);
    expect(p.conversations[0].turns[0].metadata?.tool_calls).toEqual([{ id: "c1", name: "get_weather", arguments: "not json, kept as the model wrote it", result: null }]);
  });
});
