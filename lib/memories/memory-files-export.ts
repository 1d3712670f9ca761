import "server-only";
import { strToU8, zipSync, type Zippable } from "fflate";
import type { ProjectSql } from "../db/project-sql";
import { MEMORY_COLUMNS, serializeMemory, type MemoryRow } from "./memory-row";
import type { Memory } from "./schemas";

// A user's active memories written back as files other tools read (issue 25):
// - a /memories directory (zip), as a client of Anthropic's memory tool keeps it, one folder
//   per user: a memory imported from such a folder goes back to its own file; the others
//   to one file per kind (preferences.md, facts.md, patterns.md, skills.md), a list item each;
// - Claude Code's MEMORY.md: one section per kind, a list item per memory.
// Both beside the editable memory.md export (GET /users/{id}/memory-md), which keeps ids.

const FILE_OF: Record<Memory["memory_type"], string> = { preference: "preferences.md", fact: "facts.md", pattern: "patterns.md", skill: "skills.md" };
const HEADING: Record<Memory["memory_type"], string> = { preference: "Preferences", fact: "Facts", pattern: "Patterns", skill: "Skills" };

export async function activeMemories(sql: ProjectSql, userId: string): Promise<Memory[]> {
  const rows = await sql.query<MemoryRow>(
    `SELECT ${MEMORY_COLUMNS} FROM memories m WHERE m.user_id = $1 AND m.project_id = $2 AND m.status = 'active' ORDER BY m.created_at, m.id`,
    [userId, sql.projectId],
  );
  return rows.map(serializeMemory);
}

/** A list item; a memory of several lines keeps them, indented under the item. */
const item = (content: string) => content.split(/\r?\n/).map((l, i) => (i === 0 ? `- ${l}` : l ? `  ${l}` : "")).join("\n");

/** File names inside the user's folder (a path from an import, when it is safe to reuse). */
function fileFor(m: Memory, userId: string): string {
  const sd = m.structured_data as { source?: unknown; path?: unknown } | null;
  if (sd?.source === "memory-dir" && typeof sd.path === "string") {
    const rel = sd.path.replace(/^\/memories\//, "").replace(new RegExp(`^${userId.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}/`), "");
    if (/^[\w\-. /]+$/.test(rel) && !rel.split("/").some((s) => s === ".." || s === "." || !s)) return rel;
  }
  return FILE_OF[m.memory_type];
}

export function memoriesZip(userId: string, memories: Memory[]): Uint8Array {
  const byFile = new Map<string, string[]>();
  for (const m of memories) {
    const f = fileFor(m, userId);
    if (!byFile.has(f)) byFile.set(f, []);
    byFile.get(f)!.push(/\.md$/.test(f) ? item(m.content) : m.content);
  }
  const folder = `memories/${safeSegment(userId)}`;
  const files: Zippable = {};
  for (const [f, items] of byFile) files[`${folder}/${f}`] = strToU8(`${items.join(/\.md$/.test(f) ? "\n" : "\n\n")}\n`);
  if (!byFile.size) files[`${folder}/`] = new Uint8Array(0);
  return zipSync(files, { level: 6 });
}

export function claudeCodeMemoryMd(userId: string, memories: Memory[]): string {
  const out = ["# MEMORY.md", "", `<!-- Memscope: the active memories of ${userId.replace(/--/g, "- -")}, one list item each. -->`];
  for (const type of Object.keys(HEADING) as Memory["memory_type"][]) {
    const ms = memories.filter((m) => m.memory_type === type);
    if (!ms.length) continue;
    out.push("", `## ${HEADING[type]}`, "", ...ms.map((m) => item(m.content)));
  }
  return `${out.join("\n")}\n`;
}

/** A user id as one folder name: path separators and dot segments cannot climb out. */
function safeSegment(id: string): string {
  const s = id.replace(/[/\\\0]/g, "_");
  return s === "." || s === ".." ? `_${s}` : s;
}
