import { describe, expect, it } from "vitest";
import { isPlaceholder, tokenBufferWindow, type WindowTurn } from "@/lib/window/token-buffer";

const turn = (id: string, userTokens: number, assistantTokens: number, answer = `a${id}`, answerTokens = 5): WindowTurn => ({
  id,
  query: `q${id}`,
  answer,
  answerTokens,
  userTokens,
  assistantTokens,
  userFiles: [],
  assistantFiles: [],
});

describe("tokenBufferWindow (Dify get_history_prompt_messages, whole-turn pruning)", () => {
  // Newest first, as extractThread returns.
  const thread = [turn("3", 10, 20), turn("2", 10, 20), turn("1", 10, 20)];

  it("keeps everything under the limit, oldest first, user then assistant", () => {
    const w = tokenBufferWindow(thread, 1000);
    expect(w.messages.map((m) => m.content)).toEqual(["q1", "a1", "q2", "a2", "q3", "a3"]);
    expect(w.messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant", "user", "assistant"]);
    expect(w.totalTokens).toBe(3 + 90);
    expect(w.droppedIds).toEqual([]);
    expect(w.threadIds).toEqual(["3", "2", "1"]);
  });

  it("a total equal to the limit fits", () => {
    expect(tokenBufferWindow(thread, 93).droppedIds).toEqual([]);
    expect(tokenBufferWindow(thread, 92).droppedIds).toEqual(["1"]);
  });

  it("drops the oldest whole turns until the total fits", () => {
    const w = tokenBufferWindow(thread, 40);
    expect(w.messages.map((m) => m.content)).toEqual(["q3", "a3"]);
    expect(w.droppedIds).toEqual(["2", "1"]);
    expect(w.totalTokens).toBe(33);
  });

  it("is empty when even the newest turn does not fit", () => {
    const w = tokenBufferWindow(thread, 32);
    expect(w.messages).toEqual([]);
    expect(w.totalTokens).toBe(0);
    expect(w.droppedIds).toEqual(["3", "2", "1"]);
    expect(tokenBufferWindow(thread, 0).messages).toEqual([]);
  });

  it("leaves out the in-flight placeholder (empty answer and answer_tokens 0)", () => {
    const w = tokenBufferWindow([turn("4", 10, 4, "", 0), ...thread], 1000);
    expect(w.placeholderId).toBe("4");
    expect(w.threadIds).toEqual(["3", "2", "1"]);
    expect(w.messages).toHaveLength(6);
  });

  it("keeps a newest turn whose answer is empty but has recorded tokens", () => {
    const w = tokenBufferWindow([turn("4", 10, 4, "", 7), ...thread], 1000);
    expect(w.placeholderId).toBeNull();
    expect(w.messages).toHaveLength(8);
  });

  it("only the newest row can be a placeholder", () => {
    expect(isPlaceholder({ answer: "", answerTokens: 0 })).toBe(true);
    const w = tokenBufferWindow([turn("3", 10, 20), turn("2", 10, 4, "", 0)], 1000);
    expect(w.placeholderId).toBeNull();
    expect(w.messages).toHaveLength(4);
  });

  it("an empty thread costs nothing", () => {
    expect(tokenBufferWindow([], 10)).toMatchObject({ messages: [], totalTokens: 0, droppedIds: [] });
  });

  it("puts file parts before the text", () => {
    const t = { ...turn("1", 100, 10), userFiles: [{ type: "image" as const, transfer_method: "remote_url", url: "http://x/i.png" }] };
    const w = tokenBufferWindow([t], 1000);
    expect(w.messages[0].content).toEqual([
      { type: "image", transfer_method: "remote_url", url: "http://x/i.png" },
      { type: "text", text: "q1" },
    ]);
  });
});
