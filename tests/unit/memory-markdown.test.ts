import { describe, expect, it } from "vitest";
import { ValidationError } from "@/lib/errors/domain-errors";
import { diffMarkdown, exportMarkdown, parseMarkdown } from "@/lib/memories/memory-markdown";
import type { Memory } from "@/lib/memories/schemas";

let n = 0;
function mem(p: Partial<Memory> & Pick<Memory, "memory_type" | "content">): Memory {
  n++;
  return {
    id: `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`,
    app_id: null,
    user_id: "u1",
    structured_data: null,
    source_session_id: null,
    importance_score: 0.5,
    access_count: 0,
    last_accessed_at: null,
    status: "active",
    confidence: 0.8,
    version: 1,
    created_at: "2026-01-01T00:00:00.000Z",
    updated_at: "2026-01-01T00:00:00.000Z",
    ...p,
  };
}

function lineOf(fn: () => unknown): number | undefined {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(ValidationError);
    return (e as ValidationError).details[0].line as number;
  }
  throw new Error("expected a 422");
}

describe("memory.md export and parse", () => {
  const memories = [
    mem({ memory_type: "preference", content: "Prefers dark mode", importance_score: 0.8 }),
    mem({ memory_type: "fact", content: "Name is Ana" }),
    mem({ memory_type: "fact", content: "Works at Acme\nas a backend engineer\n\nsince 2020", importance_score: 0.123456789 }),
    mem({ memory_type: "pattern", content: "Writes the weekly report every Monday" }),
  ];
  const byId = new Map(memories.map((m) => [m.id, m]));

  it("exports sections with one marked bullet per memory", () => {
    const md = exportMarkdown("memory", memories);
    expect(md).toContain("## Preferences");
    expect(md).toContain("## Facts");
    expect(md).toContain("## Patterns");
    expect(md).toContain(`- Prefers dark mode <!-- id:${memories[0].id} importance:0.8 -->`);
    expect(md.indexOf("## Facts")).toBeLessThan(md.indexOf("Name is Ana"));
  });

  it("round-trips exactly: every memory unchanged (multi-line content, full-precision importance)", () => {
    const bullets = parseMarkdown("memory", exportMarkdown("memory", memories));
    expect(bullets.map((b) => [b.id, b.memory_type, b.content])).toEqual(memories.map((m) => [m.id, m.memory_type, m.content]));
    const diff = diffMarkdown(bullets, memories, byId);
    expect(diff).toEqual({ added: [], changed: [], archived: [], unchanged: 4 });
  });

  it("diffs edits, moves, additions and removals", () => {
    let md = exportMarkdown("memory", memories);
    md = md.replace("Prefers dark mode", "Prefers light mode");
    md = md.replace(/^- Name is Ana.*\n/m, ""); // removed
    md = md.replace("## Patterns\n", "## Patterns\n\n- Drinks coffee at 9 <!-- importance:0.7 -->\n- Reads the news\n");
    md = md.replace(`importance:0.123456789`, "importance:0.9");
    const diff = diffMarkdown(parseMarkdown("memory", md), memories, byId);
    expect(diff.changed.map((c) => [c.id, c.after.content, c.after.importance_score])).toEqual([
      [memories[0].id, "Prefers light mode", 0.8],
      [memories[2].id, memories[2].content, 0.9],
    ]);
    expect(diff.archived).toEqual([{ id: memories[1].id, content: "Name is Ana", memory_type: "fact" }]);
    expect(diff.added.map((a) => [a.memory_type, a.content, a.importance_score])).toEqual([
      ["pattern", "Drinks coffee at 9", 0.7],
      ["pattern", "Reads the news", 0.5],
    ]);
    expect(diff.unchanged).toBe(1);
  });

  it("moving a bullet to another section changes its type", () => {
    const md = `## Facts\n\n- Prefers dark mode <!-- id:${memories[0].id} importance:0.8 -->\n`;
    const diff = diffMarkdown(parseMarkdown("memory", md), [memories[0]], byId);
    expect(diff.changed[0].before.memory_type).toBe("preference");
    expect(diff.changed[0].after.memory_type).toBe("fact");
  });

  it("ignores titles, paragraphs, sub-headings and comments; accepts * bullets", () => {
    const md = "# Memory\n\nSome notes.\n<!--\nmulti-line\ncomment\n-->\n## Preferences\n### UI\n* Likes tea\n\nA paragraph.\n";
    const b = parseMarkdown("memory", md);
    expect(b.map((x) => [x.memory_type, x.content])).toEqual([["preference", "Likes tea"]]);
  });

  it("keeps a marker moved to the first line of a multi-line bullet", () => {
    const id = memories[2].id;
    const b = parseMarkdown("memory", `## Facts\n- Works at Acme <!-- id:${id} -->\n  as a backend engineer\n`);
    expect(b[0]).toMatchObject({ id, content: "Works at Acme\nas a backend engineer", importance: null });
  });

  it("refuses bullets under unknown sections or outside sections, naming the line", () => {
    expect(lineOf(() => parseMarkdown("memory", "# Memory\n\n## Hobbies\n\n- Chess\n"))).toBe(5);
    expect(lineOf(() => parseMarkdown("memory", "- Chess\n"))).toBe(1);
    expect(lineOf(() => parseMarkdown("learnings", "## Skills\n- ok\n## Facts\n- Chess\n"))).toBe(4);
  });

  it("refuses bad markers, unknown ids, duplicates and empty bullets", () => {
    expect(lineOf(() => parseMarkdown("memory", "## Facts\n- X <!-- id:nope -->\n"))).toBe(2);
    expect(lineOf(() => parseMarkdown("memory", "## Facts\n- X <!-- importance:2 -->\n"))).toBe(2);
    expect(lineOf(() => parseMarkdown("memory", "## Facts\n-\n"))).toBe(2);
    const unknown = `## Facts\n\n- X <!-- id:11111111-1111-4111-8111-111111111111 -->\n`;
    expect(lineOf(() => diffMarkdown(parseMarkdown("memory", unknown), memories, byId))).toBe(3);
    const dup = `## Facts\n- A <!-- id:${memories[1].id} -->\n- B <!-- id:${memories[1].id} -->\n`;
    expect(lineOf(() => diffMarkdown(parseMarkdown("memory", dup), memories, byId))).toBe(3);
    const archived = mem({ memory_type: "fact", content: "Old", status: "archived" });
    const md = `## Facts\n- Old <!-- id:${archived.id} -->\n`;
    expect(lineOf(() => diffMarkdown(parseMarkdown("memory", md), [], new Map([[archived.id, archived]])))).toBe(2);
  });

  it("learnings.md has only Skills", () => {
    const s = mem({ memory_type: "skill", content: "Deep research: web_search → read_url → summarize" });
    const md = exportMarkdown("learnings", [s]);
    expect(md).toContain("## Skills");
    expect(md).not.toContain("## Facts");
    expect(diffMarkdown(parseMarkdown("learnings", md), [s], new Map([[s.id, s]])).unchanged).toBe(1);
  });

  it("a plain comment at the end of a bullet is content, not a marker", () => {
    const b = parseMarkdown("memory", "## Facts\n- Uses HTML <!-- like this -->\n");
    expect(b[0]).toMatchObject({ id: null, content: "Uses HTML <!-- like this -->" });
  });
});
