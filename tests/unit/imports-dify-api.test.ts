import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseImportText } from "@/lib/imports/parse-import";
import { UUID_NIL } from "@/lib/threads/uuid-nil";

const fixture = (name: string) => fs.readFileSync(path.join(__dirname, "../fixtures/imports", name), "utf8");
const C1 = "3f1c2a90-5b7e-4d21-9c3a-0a1b2c3d4e01";
const m = (n: string) => `7a0d9e4c-1111-4c5a-8d2e-0000000000${n}`;

describe("Dify Service API JSON parser", () => {
  const parsed = parseImportText(fixture("dify-api.json"), undefined, { app_id: "travel" });

  it("is detected from {conversations: [...]} and keeps conversation fields", () => {
    expect(parsed.format).toBe("dify-api");
    expect(parsed.conversations.map((c) => c.id)).toEqual([C1, "3f1c2a90-5b7e-4d21-9c3a-0a1b2c3d4e02"]);
    const c = parsed.conversations[0];
    expect(c).toMatchObject({ externalId: C1, app_id: "travel", end_user_id: "ana@example.com", name: "Trip to Porto" });
    expect(c.model_config).toEqual({ source: "dify", introduction: "Hi! I plan trips.", inputs: { tone: "friendly" } });
    expect(c.created_at).toBe(new Date(1767261600 * 1000).toISOString());
  });

  it("orders turns oldest first and keeps ids and parents exactly (regenerated answers stay siblings)", () => {
    const turns = parsed.conversations[0].turns;
    expect(turns.map((t) => t.id)).toEqual([m("01"), m("02"), m("3a"), m("3b"), m("04")]);
    expect(turns.map((t) => t.parent_message_id)).toEqual([null, m("01"), m("02"), m("02"), m("3b")]);
    expect(parsed.conversations[1].turns.map((t) => t.parent_message_id)).toEqual([UUID_NIL, UUID_NIL]);
  });

  it("reads created_at as unix seconds, files as image parts, feedback and usage into metadata", () => {
    const [first, , regenA, regenB, last] = parsed.conversations[0].turns;
    expect(first.created_at).toBe("2026-01-01T10:00:00.000Z");
    expect(first.files).toEqual([
      { type: "image", transfer_method: "remote_url", url: "https://files.example.com/ticket.png", upload_file_id: null, belongs_to: "user" },
    ]);
    expect(regenA.metadata?.feedback).toEqual({ rating: "dislike" });
    expect(regenB.metadata?.feedback).toEqual({ rating: "like" });
    expect(last.metadata?.usage).toMatchObject({ prompt_tokens: 812, completion_tokens: 14, total_tokens: 826 });
    expect(last.answer_tokens).toBe(14);
    expect(parsed.conversations[0].turns[1].metadata?.retriever_resources).toHaveLength(1);
  });

  it("turns agent thoughts that used a tool into metadata.tool_calls", () => {
    expect(parsed.conversations[1].turns[0].metadata?.tool_calls).toEqual([
      { id: "a7000000-0000-4000-8000-000000000001", name: "get_forecast", arguments: '{"city":"Porto"}', result: "rain 60%, 14C" },
    ]);
  });

  it("names the record and field of a bad value, and keeps the other conversations", () => {
    expect(parsed.problems).toEqual([{ record: "conversations[2]", field: "messages[0].created_at", message: "not a valid time" }]);
  });

  it("reads a bare GET /messages page as one conversation", () => {
    const page = parseImportText(fixture("dify-messages-page.json"), undefined);
    expect(page.format).toBe("dify-api");
    expect(page.conversations).toHaveLength(1);
    const c = page.conversations[0];
    expect(c.id).toBe("2e9d1c40-6a5b-4c3d-8e7f-0a1b2c3d4e10");
    expect(c.turns.map((t) => t.parent_message_id)).toEqual([UUID_NIL, "5d7e8f90-4444-4a1b-9c2d-000000000001"]);
    expect(c.turns[0].files[0]).toMatchObject({ transfer_method: "local_file", upload_file_id: "f0000000-0000-4000-8000-0000000000aa" });
  });

  it("refuses a message of another conversation, naming the field", () => {
    const doc = { conversations: [{ id: C1, messages: [{ id: m("01"), conversation_id: "3f1c2a90-5b7e-4d21-9c3a-0a1b2c3d4e99", query: "q", answer: "a" }] }] };
    const p = parseImportText(JSON.stringify(doc), "dify-api");
    expect(p.problems[0]).toMatchObject({ record: "conversations[0]", field: "messages[0].conversation_id" });
    expect(p.conversations).toHaveLength(0);
  });

  it("refuses an unknown shape with a 422 naming format", () => {
    expect(() => parseImportText('{"hello": 1}', undefined)).toThrowError(/not recognized/);
  });
});
