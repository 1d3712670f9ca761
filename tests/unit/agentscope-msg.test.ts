import { describe, expect, it } from "vitest";
import {
  charCount,
  charCountOf,
  firstResultText,
  fromRoleMessages,
  hasToolResult,
  hasToolUse,
  isCompressedMessage,
  isFinalAssistantResponse,
  isToolMessage,
  isToolResultMessage,
  isToolUseMessage,
  textContent,
  toRoleMessage,
  withoutPlanToolCalls,
  type AsBlock,
  type AsMsg,
  type AsRole,
} from "@/lib/strategies/agentscope/msg";
import { estimateTokens, mapAsJson, messageTokens, textTokens } from "@/lib/strategies/agentscope/token-estimate";
import type { RoleMessage } from "@/lib/strategies/schemas";

// AgentScope's Msg model and MsgUtils / TokenCounterUtil (v1.0.12) as Memscope maps
// OpenAI-shaped messages onto them. Every number is worked out by hand from the rules:
// charCount = text + tool name + id + JSON of a non-empty input (or the raw arguments)
// + result texts; tokens = ceil(chars / 2.5) per piece + 5 per message, 10 per tool
// call, 8 per tool result, 5 per other block.

const written = (role: AsRole, content: AsBlock[], extra: Partial<AsMsg> = {}): AsMsg => ({ role, name: role.toLowerCase(), content, source: null, index: -1, ...extra });
const use = (id: string, name: string, input: Record<string, unknown> | null = {}, raw: string | null = null, args = "{}"): AsBlock => ({ type: "tool_use", id, name, input, raw, args });
const result = (id: string, name: string, ...output: string[]): AsBlock => ({ type: "tool_result", id, name, output });
const text = (t: string): AsBlock => ({ type: "text", text: t });

describe("fromRoleMessages (Memscope message to AgentScope Msg)", () => {
  it("maps roles, keeps the source and index, names a message by its role unless it has a name", () => {
    const input: RoleMessage[] = [
      { role: "system", content: "rules" },
      { role: "user", content: "hi", name: "ana" },
      { role: "assistant", content: "hello" },
    ];
    const out = fromRoleMessages(input);
    expect(out.map((m) => [m.role, m.name, m.index])).toEqual([
      ["SYSTEM", "system", 0],
      ["USER", "ana", 1],
      ["ASSISTANT", "assistant", 2],
    ]);
    out.forEach((m, i) => expect(m.source).toBe(input[i]));
    expect(out[0].content).toEqual([{ type: "text", text: "rules" }]);
    expect(out.every((m) => m.compress === undefined)).toBe(true);
  });

  it("an assistant's tool calls become tool-use blocks after its text; input is a parsed JSON object, raw the arguments otherwise", () => {
    const [m] = fromRoleMessages([
      {
        role: "assistant",
        content: "let me look",
        tool_calls: [
          { id: "c1", name: "read", arguments: '{"path":"/a"}' },
          { id: "c2", name: "list", arguments: "[1,2]" },
          { id: "c3", name: "ping", arguments: "" },
          { id: "c4", name: "echo", arguments: "not json" },
          { id: "c5", name: "nil", arguments: "null" },
          { id: "c6", name: "num", arguments: "7" },
        ],
      },
    ]);
    expect(m.content).toEqual([
      { type: "text", text: "let me look" },
      { type: "tool_use", id: "c1", name: "read", input: { path: "/a" }, raw: null, args: '{"path":"/a"}' },
      { type: "tool_use", id: "c2", name: "list", input: null, raw: "[1,2]", args: "[1,2]" },
      { type: "tool_use", id: "c3", name: "ping", input: null, raw: null, args: "" },
      { type: "tool_use", id: "c4", name: "echo", input: null, raw: "not json", args: "not json" },
      { type: "tool_use", id: "c5", name: "nil", input: null, raw: "null", args: "null" },
      { type: "tool_use", id: "c6", name: "num", input: null, raw: "7", args: "7" },
    ]);
  });

  it("an empty text next to tool calls is no block; an empty text alone is one", () => {
    const [withCalls, alone, emptyCalls] = fromRoleMessages([
      { role: "assistant", content: "", tool_calls: [{ id: "c1", name: "t", arguments: "{}" }] },
      { role: "assistant", content: "" },
      { role: "assistant", content: "", tool_calls: [] },
    ]);
    expect(withCalls.content.map((b) => b.type)).toEqual(["tool_use"]);
    expect(alone.content).toEqual([{ type: "text", text: "" }]);
    expect(emptyCalls.content).toEqual([{ type: "text", text: "" }]);
  });

  it("content parts: text parts become text blocks, other parts 'other' blocks of their kind, in order", () => {
    const [m] = fromRoleMessages([
      {
        role: "user",
        content: [
          { type: "text", text: "see" },
          { type: "image", transfer_method: "remote_url", url: "http://x/i.png" },
          { type: "text", text: "this" },
        ],
      },
    ]);
    expect(m.content).toEqual([text("see"), { type: "other", kind: "image" }, text("this")]);
  });

  it("a tool result is named after the call it answers, else its own name, else 'tool'; parts give their texts", () => {
    const out = fromRoleMessages([
      { role: "assistant", content: "", tool_calls: [{ id: "c1", name: "search", arguments: "{}" }] },
      { role: "tool", tool_call_id: "c1", content: "found", name: "renamed" },
      { role: "tool", tool_call_id: "zz", content: "orphan", name: "mytool" },
      { role: "tool", tool_call_id: "yy", content: "anon" },
      {
        role: "tool",
        tool_call_id: "c1",
        content: [
          { type: "text", text: "a" },
          { type: "image", transfer_method: "remote_url" },
          { type: "text", text: "b" },
        ],
      },
    ]);
    expect(out[1]).toMatchObject({ role: "TOOL", name: "renamed", content: [{ type: "tool_result", id: "c1", name: "search", output: ["found"] }] });
    expect(out[2]).toMatchObject({ role: "TOOL", name: "mytool", content: [{ type: "tool_result", id: "zz", name: "mytool", output: ["orphan"] }] });
    expect(out[3]).toMatchObject({ role: "TOOL", name: "tool", content: [{ type: "tool_result", id: "yy", name: "tool", output: ["anon"] }] });
    expect(out[4]).toMatchObject({ role: "TOOL", name: "search", content: [{ type: "tool_result", id: "c1", name: "search", output: ["a", "b"] }] });
    expect(out[4].content).toHaveLength(1);
    expect(out[1].source).toBe(out[1].source);
    expect(out.map((m) => m.index)).toEqual([0, 1, 2, 3, 4]);
  });

  it("a tool message without tool_call_id gets an empty id", () => {
    const [m] = fromRoleMessages([{ role: "tool", content: "x" } as RoleMessage]);
    expect(m.content).toEqual([{ type: "tool_result", id: "", name: "tool", output: ["x"] }]);
  });
});

describe("toRoleMessage (back to the OpenAI shape)", () => {
  it("an unchanged message is its input object", () => {
    const input: RoleMessage = { role: "user", content: "hi" };
    expect(toRoleMessage(fromRoleMessages([input])[0])).toBe(input);
  });

  it("a written tool message is a tool message of its result's id and output lines", () => {
    expect(toRoleMessage(written("TOOL", [result("c9", "t", "one", "two")]))).toEqual({ role: "tool", tool_call_id: "c9", content: "one\ntwo" });
  });

  it("a written assistant message: its text blocks, and tool calls only when it has tool-use blocks", () => {
    expect(toRoleMessage(written("ASSISTANT", [text("sum"), use("c1", "read", { a: 1 }, null, '{"a":1}'), text("more")]))).toEqual({
      role: "assistant",
      content: "sum\nmore",
      tool_calls: [{ id: "c1", name: "read", arguments: '{"a":1}' }],
    });
    const plain = toRoleMessage(written("ASSISTANT", [text("only text")]));
    expect(plain).toEqual({ role: "assistant", content: "only text" });
    expect("tool_calls" in plain).toBe(false);
    expect(toRoleMessage(written("USER", [text("q")]))).toEqual({ role: "user", content: "q" });
    expect(toRoleMessage(written("SYSTEM", [text("s")]))).toEqual({ role: "system", content: "s" });
  });

  it("a tool-result block in a message that is not the tool's role does not make it a tool message", () => {
    expect(toRoleMessage(written("ASSISTANT", [text("x"), result("c1", "t", "out")]))).toEqual({ role: "assistant", content: "x" });
    // A TOOL message with no result block keeps its text.
    expect(toRoleMessage(written("TOOL", [text("bare")]))).toEqual({ role: "tool", content: "bare" });
    // The result block is found wherever it is among the blocks.
    expect(toRoleMessage(written("TOOL", [text("note"), result("c2", "t", "out")]))).toEqual({ role: "tool", tool_call_id: "c2", content: "out" });
  });
});

describe("textContent (Msg.getTextContent)", () => {
  it("joins the text blocks with newlines and skips the others", () => {
    expect(textContent(written("ASSISTANT", [use("c", "t"), text("a"), { type: "other", kind: "image" }, text("b"), text("")]))).toBe("a\nb\n");
    expect(textContent(written("ASSISTANT", [text("solo")]))).toBe("solo");
    expect(textContent(written("ASSISTANT", [use("c", "t")]))).toBe("");
    expect(textContent(written("USER", [text(""), text("x")]))).toBe("\nx");
  });

  it("gives the same answer when asked again", () => {
    const m = written("USER", [text("a"), text("b")]);
    expect(textContent(m)).toBe("a\nb");
    expect(textContent(m)).toBe("a\nb");
  });
});

describe("MsgUtils predicates", () => {
  const callMsg = written("ASSISTANT", [use("c1", "t")]);
  const resultInAssistant = written("ASSISTANT", [result("c1", "t", "o")]);
  const toolRole = written("TOOL", [text("no block")]);
  const userWithUse = written("USER", [use("c1", "t")]);
  const answer = written("ASSISTANT", [text("done")]);
  const user = written("USER", [text("q")]);

  it("hasToolUse / hasToolResult look at the blocks", () => {
    expect([callMsg, resultInAssistant, toolRole, answer].map(hasToolUse)).toEqual([true, false, false, false]);
    expect([callMsg, resultInAssistant, toolRole, answer].map(hasToolResult)).toEqual([false, true, false, false]);
    // Any block, not every block.
    expect(hasToolResult(written("TOOL", [text("x"), result("c1", "t", "o")]))).toBe(true);
    expect(hasToolUse(written("ASSISTANT", [text("x"), use("c1", "t")]))).toBe(true);
  });

  it("isToolMessage: tool role, or any tool-use or tool-result block", () => {
    expect([callMsg, resultInAssistant, toolRole, userWithUse, answer, user].map(isToolMessage)).toEqual([true, true, true, true, false, false]);
  });

  it("isToolUseMessage: only an assistant with a tool-use block", () => {
    expect([callMsg, userWithUse, answer, toolRole].map(isToolUseMessage)).toEqual([true, false, false, false]);
  });

  it("isToolResultMessage: tool role or a tool-result block", () => {
    expect([toolRole, resultInAssistant, callMsg, answer].map(isToolResultMessage)).toEqual([true, true, false, false]);
  });

  it("isCompressedMessage: a message a strategy marked", () => {
    expect(isCompressedMessage(answer)).toBe(false);
    expect(isCompressedMessage(written("ASSISTANT", [text("s")], { compress: {} }))).toBe(true);
  });

  it("isFinalAssistantResponse: an assistant answer, not a call, not a result, not a compressed current round", () => {
    expect(isFinalAssistantResponse(answer)).toBe(true);
    expect(isFinalAssistantResponse(user)).toBe(false);
    expect(isFinalAssistantResponse(callMsg)).toBe(false);
    expect(isFinalAssistantResponse(resultInAssistant)).toBe(false);
    expect(isFinalAssistantResponse(written("ASSISTANT", [text("s")], { compress: { currentRound: true } }))).toBe(false);
    expect(isFinalAssistantResponse(written("ASSISTANT", [text("s")], { compress: { currentRound: false, offloadUuid: "u" } }))).toBe(true);
  });
});

describe("charCount (MsgUtils.calculateMessageCharCount)", () => {
  it("text blocks count their characters; other blocks nothing", () => {
    expect(charCount(written("USER", [text("hello"), { type: "other", kind: "image" }, text("abc")]))).toBe(8);
  });

  it("a tool call counts name + id + its input as JSON, only when the input has keys", () => {
    // "read" 4 + "call_1" 6 + {"path":"/a"} 13
    expect(charCount(written("ASSISTANT", [use("call_1", "read", { path: "/a" }, null, '{"path":"/a"}')]))).toBe(23);
    // empty input: name + id only
    expect(charCount(written("ASSISTANT", [use("call_1", "read", {}, null, "{}")]))).toBe(10);
    // raw arguments: name + id + raw
    expect(charCount(written("ASSISTANT", [use("c2", "list", null, "[1,2]", "[1,2]")]))).toBe(11);
    // null input and no raw: name + id
    expect(charCount(written("ASSISTANT", [use("c3", "ping", null, null, "")]))).toBe(6);
  });

  it("a tool result counts name + id + every output text", () => {
    // "search" 6 + "c1" 2 + "found" 5 + "it" 2
    expect(charCount(written("TOOL", [result("c1", "search", "found", "it")]))).toBe(15);
  });

  it("from role messages: text, calls and results add up; charCountOf sums a list", () => {
    const msgs = fromRoleMessages([
      { role: "assistant", content: "ok", tool_calls: [{ id: "c1", name: "search", arguments: '{"q":"x"}' }] },
      { role: "tool", tool_call_id: "c1", content: "found" },
    ]);
    // "ok" 2 + "search" 6 + "c1" 2 + {"q":"x"} 9 = 19; result "search" 6 + "c1" 2 + "found" 5 = 13
    expect(msgs.map(charCount)).toEqual([19, 13]);
    expect(charCountOf(msgs)).toBe(32);
    expect(charCountOf([])).toBe(0);
  });
});

describe("firstResultText", () => {
  it("the first tool result's outputs joined by newlines, or null", () => {
    expect(firstResultText(written("TOOL", [text("x"), result("c1", "t", "a", "b"), result("c2", "t", "z")]))).toBe("a\nb");
    expect(firstResultText(written("ASSISTANT", [text("x")]))).toBeNull();
  });
});

describe("withoutPlanToolCalls (MsgUtils.filterPlanRelatedToolCalls)", () => {
  const PLAN = [
    "create_plan",
    "update_plan_info",
    "revise_current_plan",
    "update_subtask_state",
    "finish_subtask",
    "view_subtasks",
    "get_subtask_count",
    "finish_plan",
    "view_historical_plans",
    "recover_historical_plan",
  ];

  it.each(PLAN)("drops a call made only of %s, and its result", (name) => {
    const msgs = [
      written("USER", [text("q")]),
      written("ASSISTANT", [use("p1", name)]),
      written("TOOL", [result("p1", name, "ok")]),
      written("ASSISTANT", [use("r1", "read_file")]),
      written("TOOL", [result("r1", "read_file", "data")]),
    ];
    expect(withoutPlanToolCalls(msgs)).toEqual([msgs[0], msgs[3], msgs[4]]);
  });

  it("without plan calls the same list comes back", () => {
    const msgs = [written("ASSISTANT", [use("r1", "read_file")]), written("TOOL", [result("r1", "read_file", "x")])];
    expect(withoutPlanToolCalls(msgs)).toBe(msgs);
  });

  it("a call mixing a plan tool with another tool stays; the plan tool's result goes", () => {
    const msgs = [
      written("ASSISTANT", [use("p1", "create_plan"), use("r1", "read_file")]),
      written("TOOL", [result("p1", "create_plan", "ok")]),
      written("TOOL", [result("r1", "read_file", "data")]),
      written("ASSISTANT", [text("done")]),
    ];
    expect(withoutPlanToolCalls(msgs)).toEqual([msgs[0], msgs[2], msgs[3]]);
  });

  it("only an assistant's calls count as plan calls; only tool messages are dropped as their results", () => {
    const userCall = [written("USER", [use("p1", "create_plan")]), written("TOOL", [result("p1", "create_plan", "ok")])];
    expect(withoutPlanToolCalls(userCall)).toBe(userCall);
    const msgs = [
      written("ASSISTANT", [use("p1", "finish_plan")]),
      written("USER", [result("p1", "finish_plan", "ok")]),
      written("ASSISTANT", [text("no calls")]),
      written("ASSISTANT", [text("x"), result("p1", "finish_plan", "ok")]),
    ];
    expect(withoutPlanToolCalls(msgs)).toEqual([msgs[1], msgs[2], msgs[3]]);
    // A user message made of plan calls is not a call the filter drops.
    const userUse = [written("ASSISTANT", [use("p1", "finish_plan")]), written("USER", [use("p2", "create_plan")])];
    expect(withoutPlanToolCalls(userUse)).toEqual([userUse[1]]);
    // A plan-named result block in an assistant message is not a call.
    const named = [written("ASSISTANT", [text("x"), result("p1", "create_plan", "ok")]), written("TOOL", [result("p1", "create_plan", "ok")])];
    expect(withoutPlanToolCalls(named)).toBe(named);
  });

  it("an assistant message with text and only plan calls is dropped; a tool message goes when any of its results answers a plan call", () => {
    const msgs = [
      written("ASSISTANT", [text("planning"), use("p1", "create_plan")]),
      written("TOOL", [text("note"), result("p1", "create_plan", "ok")]),
      written("TOOL", [use("p1", "x")]),
      written("ASSISTANT", [text("done")]),
    ];
    expect(withoutPlanToolCalls(msgs)).toEqual([msgs[2], msgs[3]]);
  });
});

describe("TokenCounterUtil estimate", () => {
  it("textTokens: characters / 2.5 rounded up; nothing for empty or missing text", () => {
    expect([textTokens(null), textTokens(undefined), textTokens(""), textTokens("a"), textTokens("abcde"), textTokens("abcdef"), textTokens("x".repeat(10))]).toEqual([0, 0, 0, 1, 2, 3, 4]);
  });

  it("mapAsJson: keys quoted, string values quoted unescaped, other values as Java prints them", () => {
    expect(mapAsJson({})).toBe("{}");
    expect(mapAsJson({ a: "x" })).toBe('{"a":"x"}');
    expect(mapAsJson({ a: 'say "hi"', n: 1.5, t: true, z: null, l: [1, "y", [2]], o: { k: "v", m: { q: null } } })).toBe(
      '{"a":"say "hi"","n":1.5,"t":true,"z":null,"l":[1, y, [2]],"o":{k=v, m={q=null}}}',
    );
    expect(mapAsJson({ e: [], f: {} })).toBe('{"e":[],"f":{}}');
    // A missing value prints as Java's null.
    expect(mapAsJson({ m: undefined, l: [undefined] })).toBe('{"m":null,"l":[null]}');
  });

  it("a message: 5 + role + name + each block; blocks: text, tool call 10 + name + id + input, result 8 + name + id + each output, other 5", () => {
    // 5 + "USER" 2 + "user" 2 + "hello" 2 + image 5 + "abcdef" 3 = 19
    expect(messageTokens(written("USER", [text("hello"), { type: "other", kind: "image" }, text("abcdef")]))).toBe(19);
    // 5 + "ASSISTANT" 4 + "assistant" 4 + call (10 + "read" 2 + "call_1" 3 + {"path":"/a"} 6) = 34
    expect(messageTokens(written("ASSISTANT", [use("call_1", "read", { path: "/a" }, null, '{"path":"/a"}')]))).toBe(34);
    // empty input adds nothing: 5 + 4 + 4 + 10 + 2 + 3 = 28
    expect(messageTokens(written("ASSISTANT", [use("call_1", "read", {}, null, "{}")]))).toBe(28);
    // raw arguments: 5 + 4 + 4 + 10 + "list" 2 + "c2" 1 + "[1,2]" 2 = 28
    expect(messageTokens(written("ASSISTANT", [use("c2", "list", null, "[1,2]", "[1,2]")]))).toBe(28);
    // result outputs are rounded up one by one: "a" and "a" are 1 + 1, not ceil(2 / 2.5) = 1.
    // 5 + "TOOL" 2 + "tool" 2 + 8 + "t" 1 + "c1" 1 + 1 + 1 = 21
    expect(messageTokens(written("TOOL", [result("c1", "t", "a", "a")]))).toBe(21);
    // a name of its own counts instead of the role's: 5 + "USER" 2 + "ana-maria" 4 + "hi" 1 = 12
    expect(messageTokens(written("USER", [text("hi")], { name: "ana-maria" }))).toBe(12);
  });

  it("the input measured is AgentScope's rendering, not the argument text: quotes are not escaped", () => {
    // 10 quotes: the argument text {"q":"\"..."} is 6 + 20 + 2 = 28 characters (12 tokens); rendered unescaped 6 + 10 + 2 = 18 (8 tokens).
    const args = JSON.stringify({ q: '"'.repeat(10) });
    const [m] = fromRoleMessages([{ role: "assistant", content: "", tool_calls: [{ id: "c", name: "t", arguments: args }] }]);
    // 5 + 4 + 4 + 10 + "t" 1 + "c" 1 + ceil(18 / 2.5) 8 = 33
    expect(args).toHaveLength(28);
    expect(messageTokens(m)).toBe(33);
  });

  it("estimateTokens sums the messages; a message asked twice counts the same", () => {
    const msgs = [written("USER", [text("hello")]), written("ASSISTANT", [text("abcdef")])];
    // 11 and 5 + 4 + 4 + 3 = 16
    expect(estimateTokens(msgs)).toBe(27);
    expect(estimateTokens(msgs)).toBe(27);
    expect(estimateTokens([])).toBe(0);
  });
});
