import { describe, expect, it } from "vitest";
import { forgetLongPieces, LONG_PIECE_MAX_ENTRIES, messageHasLongPiece } from "@/lib/tokens/message-long-piece";

// The long-piece answers kept per stored message (GET /history, /context): a message's answer is
// kept (its text is never edited), bounded in entries, the oldest forgotten first.
const LONG = "x".repeat(400); // one piece over MAX_PIECE_BYTES

describe("messageHasLongPiece's kept answers", () => {
  it("keeps an answer per message id and forgets the oldest first when full", () => {
    forgetLongPieces();
    expect(messageHasLongPiece("m0", "short", "text", "o200k_base")).toBe(false);
    // Kept: the id's answer, whatever text comes with it later.
    expect(messageHasLongPiece("m0", LONG, "", "o200k_base")).toBe(false);
    for (let i = 1; i < LONG_PIECE_MAX_ENTRIES; i++) messageHasLongPiece(`m${i}`, "q", "a", "o200k_base");
    // Full: m0 is still there.
    expect(messageHasLongPiece("m0", LONG, "", "o200k_base")).toBe(false);
    // One more id forgets the oldest (m0), not the second oldest (m1).
    messageHasLongPiece("new", "q", "a", "o200k_base");
    expect(messageHasLongPiece("m1", LONG, "", "o200k_base")).toBe(false);
    expect(messageHasLongPiece("m0", LONG, "", "o200k_base")).toBe(true);
    // m0 came back as a new entry and forgot m1. Then in insertion order, past the queue's
    // compaction (once over half of it is forgotten): 110 000 more ids forget m2 .. m110001.
    for (let i = 0; i < 110_000; i++) messageHasLongPiece(`more${i}`, "q", "a", "o200k_base");
    expect(messageHasLongPiece("m110002", LONG, "", "o200k_base")).toBe(false);
    expect(messageHasLongPiece("m110001", LONG, "", "o200k_base")).toBe(true);
    forgetLongPieces();
    expect(messageHasLongPiece("m110002", LONG, "", "o200k_base")).toBe(true);
  });
});
