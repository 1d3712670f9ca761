import { describe, expect, it } from "vitest";
import { parentMarker } from "@/client/ui/tree-parent";
import { UUID_NIL } from "@/lib/threads/uuid-nil";

// The tree view's reading of a turn's parent (components/conversation/message-tree.tsx).
describe("parentMarker", () => {
  const conv = "c0000000-0000-4000-8000-000000000000";
  const turn = "a0000000-0000-4000-8000-000000000001";
  const ids = new Set([turn]);
  const m = (parent_message_id: string | null, tree_parent_id: string | null = null) => ({ parent_message_id, tree_parent_id });

  it("roots carry no marker: null, the conversation itself (an import's later root), UUID_NIL with nothing older", () => {
    expect(parentMarker(m(null), conv, ids)).toBeNull();
    expect(parentMarker(m(conv), conv, ids)).toBeNull();
    expect(parentMarker(m(UUID_NIL), conv, ids)).toBeNull();
  });

  it("UUID_NIL drawn under an older row is Dify's legacy 'previous row'; a parent that is a turn is plain", () => {
    expect(parentMarker(m(UUID_NIL, turn), conv, ids)).toBe("nil");
    expect(parentMarker(m(turn, turn), conv, ids)).toBeNull();
  });

  it("a parent that names no turn of the conversation is missing", () => {
    expect(parentMarker(m("b0000000-0000-4000-8000-000000000009"), conv, ids)).toBe("missing");
  });
});
