import { describe, expect, it } from "vitest";
import { threadPickerTurns } from "@/client/hooks/turns";

// The inspector's leaf picker (issue 40): any turn of the conversation can end the window,
// not only those on the current thread.

const m = (id: string, parent: string | null, query = `q${id}`) => ({ id, tree_parent_id: parent, query });

describe("leaf picker turns", () => {
  it("lists the current thread newest first, then every turn of other branches, numbered by depth in their own thread", () => {
    // 1 - 2 - 3 - 4 (current)      2 - 5 - 6 (a regenerated branch)      7 (another root)
    const messages = [m("1", null), m("2", "1"), m("3", "2"), m("5", "2"), m("4", "3"), m("6", "5"), m("7", null)];
    const { current, other } = threadPickerTurns(["4", "3", "2", "1"], messages);
    expect(current.map((t) => [t.id, t.n])).toEqual([
      ["4", 4],
      ["3", 3],
      ["2", 2],
      ["1", 1],
    ]);
    expect(other.map((t) => [t.id, t.n, t.query])).toEqual([
      ["5", 3, "q5"],
      ["6", 4, "q6"],
      ["7", 1, "q7"],
    ]);
  });
  it("a long branch is numbered without recursion", () => {
    const messages = [m("0", null), ...Array.from({ length: 20_000 }, (_, i) => m(String(i + 1), String(i)))];
    const { other } = threadPickerTurns(["0"], messages);
    expect(other.at(-1)).toMatchObject({ id: "20000", n: 20_001 });
  });
});
