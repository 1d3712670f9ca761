import { describe, expect, it } from "vitest";
import { historyText } from "@/lib/window/history-text";

describe("historyText (Dify get_history_prompt_text)", () => {
  it("one line per message with default prefixes, joined by newlines", () => {
    const text = historyText([
      { role: "user", content: "hi" },
      { role: "assistant", content: "hello" },
    ]);
    expect(text).toBe("Human: hi\nAssistant: hello");
  });

  it("custom prefixes, other roles skipped", () => {
    const text = historyText(
      [
        { role: "system", content: "be nice" },
        { role: "user", content: "hi" },
        { role: "tool", content: "{}" },
        { role: "assistant", content: "hello" },
      ],
      "User",
      "Bot",
    );
    expect(text).toBe("User: hi\nBot: hello");
  });

  it("image parts become [image]; other file parts are skipped", () => {
    const text = historyText([
      {
        role: "user",
        content: [
          { type: "image", transfer_method: "remote_url", url: "http://x/a.png" },
          { type: "document", transfer_method: "local_file", upload_file_id: "f1" },
          { type: "text", text: "what is this?" },
        ],
      },
    ]);
    expect(text).toBe("Human: [image]\nwhat is this?");
  });

  it("empty list is an empty string", () => {
    expect(historyText([])).toBe("");
  });
});
