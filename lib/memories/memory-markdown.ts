import { randomUUID } from "node:crypto";
import { z } from "zod";
import { unprocessable } from "../errors/domain-errors";
import type { ProjectSql } from "../db/project-sql";
import { writeProviders } from "../embeddings/active-model";
import { actorOf, embedTexts, insertMemoryRows, setStatusRow } from "./curation-db";
import type { MemoryMdApplied, MemoryMdDiff, MemoryMdFile, MemoryMdInput } from "./curation-schemas";
import { MEMORY_COLUMNS, serializeMemory, snapshot, type MemoryRow } from "./memory-row";
import { contentKey } from "./normalize-content";
import { recordEvent, recordEvents } from "./record-event";
import type { Memory, MemoryType } from "./schemas";
import { writeEmbeddings, writeEmbeddingsMany, type MemoryVector } from "./write-embeddings";

// memory.md and learnings.md, the design doc's human-readable, editable source of
// truth (2.1): memory.md holds preferences, facts and patterns; learnings.md skills.
//
// Format: one bullet per active memory under its type's `##` section, ending with a
// marker that makes edits round-trip:
//
//   - Prefers dark mode <!-- id:6f1c… importance:0.8 -->
//
// Multi-line content continues on lines indented by two spaces (the marker ends the
// last line). Editing the text or the importance changes the memory (a new version);
// moving a bullet to another section changes its type; a bullet without a marker is a
// new memory (`<!-- importance:0.7 -->` alone sets its importance); a removed bullet
// archives its memory. `#` titles, `###` sub-headings, paragraphs and comments on their
// own lines are ignored. A bullet under an unknown section, or a marker naming a memory
// that is not this user's active memory, is refused with the line number.

export const MD_SECTIONS: Record<MemoryMdFile, { heading: string; type: MemoryType }[]> = {
  memory: [
    { heading: "Preferences", type: "preference" },
    { heading: "Facts", type: "fact" },
    { heading: "Patterns", type: "pattern" },
  ],
  learnings: [{ heading: "Skills", type: "skill" }],
};

export const fileTypes = (file: MemoryMdFile): MemoryType[] => MD_SECTIONS[file].map((s) => s.type);

const TITLES: Record<MemoryMdFile, string> = { memory: "Memory", learnings: "Learnings" };

// ---------- export ----------

export function exportMarkdown(file: MemoryMdFile, memories: Memory[], userId?: string): string {
  const out: string[] = [`# ${TITLES[file]}`, ""];
  out.push(
    `<!-- Memscope ${file}.md${userId ? ` for user ${userId}` : ""}. One bullet per memory: edit the text, move a bullet to another section, add bullets without a marker, delete a bullet to archive its memory. Keep the id markers. -->`,
  );
  for (const section of MD_SECTIONS[file]) {
    out.push("", `## ${section.heading}`, "");
    for (const m of memories.filter((x) => x.memory_type === section.type)) out.push(bullet(m));
  }
  return `${out.join("\n")}\n`;
}

function bullet(m: Memory): string {
  const lines = m.content.split(/\r?\n/);
  const marker = `<!-- id:${m.id} importance:${m.importance_score} -->`;
  const body = lines.map((l, i) => (i === 0 ? `- ${l}` : l ? `  ${l}` : ""));
  body[body.length - 1] = `${body[body.length - 1]} ${marker}`;
  return body.join("\n");
}

// ---------- parse ----------

export type MdBullet = { line: number; memory_type: MemoryType; content: string; id: string | null; importance: number | null };

function lineError(line: number, message: string): never {
  throw unprocessable(`Line ${line}: ${message}`, [{ field: "text", message, line }]);
}

const ZId = z.uuid();

function parseMarker(body: string, line: number): { id: string | null; importance: number | null } | null {
  const tokens = body.trim().split(/\s+/).filter(Boolean);
  const pairs = tokens.map((t) => t.match(/^([a-z_]+):(.*)$/i));
  if (!pairs.length || pairs.some((p) => !p) || !pairs.some((p) => p![1] === "id" || p![1] === "importance")) return null;
  let id: string | null = null;
  let importance: number | null = null;
  for (const p of pairs) {
    const [, key, value] = p!;
    if (key === "id") {
      if (!ZId.safeParse(value).success) lineError(line, `marker id "${value}" is not a memory id`);
      id = value.toLowerCase();
    } else if (key === "importance") {
      const n = Number(value);
      if (!value || !Number.isFinite(n) || n < 0 || n > 1) lineError(line, `importance "${value}" must be a number from 0 to 1`);
      importance = n;
    }
  }
  return { id, importance };
}

export function parseMarkdown(file: MemoryMdFile, text: string): MdBullet[] {
  const sections = new Map(MD_SECTIONS[file].map((s) => [s.heading.toLowerCase(), s.type]));
  const lines = text.split(/\r?\n/);
  const out: MdBullet[] = [];
  let section: MemoryType | null = null;
  let sectionName: string | null = null;
  let open: { line: number; parts: string[]; type: MemoryType } | null = null;
  let blanks = 0;
  let inComment = false;

  const flush = () => {
    if (!open) return;
    const b = open;
    open = null;
    let raw = b.parts.join("\n");
    let marker: { id: string | null; importance: number | null } | null = null;
    // The marker is normally at the end of the bullet; one moved elsewhere in it still counts.
    const comments = [...raw.matchAll(/<!--([\s\S]*?)-->/g)].reverse();
    for (const c of comments) {
      marker = parseMarker(c[1], b.line);
      if (marker) {
        const head = raw.slice(0, c.index).replace(/[ \t]+$/, "");
        const tail = raw.slice(c.index + c[0].length).replace(/^[ \t]+/, "");
        raw = head + (head && tail && !head.endsWith("\n") && !tail.startsWith("\n") ? " " : "") + tail;
        break;
      }
    }
    const content = raw.trim();
    if (!content) lineError(b.line, "empty bullet");
    out.push({ line: b.line, memory_type: b.type, content, id: marker?.id ?? null, importance: marker?.importance ?? null });
  };

  lines.forEach((text, i) => {
    const n = i + 1;
    if (inComment) {
      if (text.includes("-->")) inComment = false;
      return;
    }
    if (!text.trim()) {
      if (open) blanks++;
      return;
    }
    const heading = text.match(/^(#{1,6})\s+(.*?)\s*#*\s*$/);
    if (heading) {
      flush();
      if (heading[1].length === 1) {
        section = null;
        sectionName = null;
      } else if (heading[1].length === 2) {
        sectionName = heading[2];
        section = sections.get(heading[2].toLowerCase()) ?? null;
      }
      return;
    }
    const item = text.match(/^[-*+](?:\s+(.*))?$/);
    if (item) {
      flush();
      if (!section) {
        const known = MD_SECTIONS[file].map((s) => `## ${s.heading}`).join(", ");
        lineError(n, sectionName ? `bullet under unknown section "## ${sectionName}" (known: ${known})` : `bullet outside a section (known: ${known})`);
      }
      open = { line: n, parts: [item[1] ?? ""], type: section };
      blanks = 0;
      return;
    }
    const indented = text.match(/^(?: {2}|\t)(.*)$/);
    if (open && (indented || blanks === 0)) {
      // Indented lines continue the bullet; so does unindented text right under it (Markdown's lazy continuation).
      const o: { parts: string[] } = open;
      for (; blanks > 0; blanks--) o.parts.push("");
      o.parts.push(indented ? indented[1] : text);
      return;
    }
    flush();
    blanks = 0;
    if (text.trimStart().startsWith("<!--") && !text.includes("-->")) inComment = true;
    // Anything else (paragraphs, comments) is ignored.
  });
  flush();
  return out;
}

// ---------- diff ----------

/**
 * `current`: the user's active memories of the file's types; `referenced`: every
 * memory of the user a marker names (any type or status).
 */
export function diffMarkdown(bullets: MdBullet[], current: Memory[], referenced: Map<string, Memory>): MemoryMdDiff {
  const diff: MemoryMdDiff = { added: [], changed: [], archived: [], unchanged: 0 };
  const seen = new Map<string, number>();
  for (const b of bullets) {
    if (!b.id) {
      diff.added.push({ memory_type: b.memory_type, content: b.content, importance_score: b.importance ?? 0.5, line: b.line });
      continue;
    }
    if (seen.has(b.id)) lineError(b.line, `memory ${b.id} is already on line ${seen.get(b.id)}`);
    seen.set(b.id, b.line);
    const m = referenced.get(b.id);
    if (!m) lineError(b.line, `unknown memory id ${b.id} (not a memory of this user)`);
    if (m.status !== "active") lineError(b.line, `memory ${b.id} is archived: restore it first, or drop the marker to save the text as a new memory`);
    const before = { memory_type: m.memory_type, content: m.content, importance_score: m.importance_score };
    const after = { memory_type: b.memory_type, content: b.content, importance_score: b.importance ?? m.importance_score };
    if (before.memory_type === after.memory_type && before.content === after.content && before.importance_score === after.importance_score) {
      diff.unchanged++;
    } else {
      diff.changed.push({ id: m.id, before, after, line: b.line });
    }
  }
  for (const m of current) {
    if (!seen.has(m.id)) diff.archived.push({ id: m.id, content: m.content, memory_type: m.memory_type });
  }
  return diff;
}

// ---------- database ----------

async function currentFor(sql: ProjectSql, userId: string, file: MemoryMdFile, lock = false): Promise<Memory[]> {
  // Locked in id order, as every writer of many memory rows locks them (a search's access
  // bump among them: issue 43), then put in the file's order (oldest first).
  const rows = await sql.query<MemoryRow>(
    `SELECT ${MEMORY_COLUMNS} FROM memories m
      WHERE m.user_id = $1 AND m.project_id = $3 AND m.status = 'active' AND m.memory_type::text = ANY($2::text[])
      ORDER BY ${lock ? "m.id FOR UPDATE" : "m.created_at, m.id"}`,
    [userId, fileTypes(file), sql.projectId],
  );
  const out = rows.map(serializeMemory);
  if (lock) out.sort((a, b) => Date.parse(a.created_at) - Date.parse(b.created_at) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return out;
}

/**
 * Every row an edit may write, locked in id order in one statement: the file's current rows
 * and those its bullets name (two sets, whose union two statements would lock out of order).
 */
async function lockForEdit(tx: ProjectSql, userId: string, file: MemoryMdFile, bullets: MdBullet[]): Promise<void> {
  const ids = bullets.map((b) => b.id).filter((x): x is string => !!x);
  await tx.query(
    `SELECT m.id FROM memories m
      WHERE m.user_id = $1 AND m.project_id = $3
        AND ((m.status = 'active' AND m.memory_type::text = ANY($2::text[])) OR m.id = ANY($4::uuid[]))
      ORDER BY m.id FOR UPDATE`,
    [userId, fileTypes(file), tx.projectId, ids],
  );
}

async function referencedFor(sql: ProjectSql, userId: string, bullets: MdBullet[], lock = false): Promise<Map<string, Memory>> {
  const ids = bullets.map((b) => b.id).filter((x): x is string => !!x);
  if (!ids.length) return new Map();
  const rows = await sql.query<MemoryRow>(
    `SELECT ${MEMORY_COLUMNS} FROM memories m WHERE m.user_id = $1 AND m.project_id = $3 AND m.id = ANY($2::uuid[]) ORDER BY m.id ${lock ? "FOR UPDATE" : ""}`,
    [userId, ids, sql.projectId],
  );
  return new Map(rows.map((r) => [r.id, serializeMemory(r)]));
}

export async function exportMemoryMd(sql: ProjectSql, userId: string, file: MemoryMdFile): Promise<string> {
  return exportMarkdown(file, await currentFor(sql, userId, file), userId);
}

export async function previewMemoryMd(sql: ProjectSql, userId: string, input: MemoryMdInput): Promise<MemoryMdDiff> {
  const bullets = parseMarkdown(input.file, input.text);
  return diffMarkdown(bullets, await currentFor(sql, userId, input.file), await referencedFor(sql, userId, bullets));
}

/** Applies the edit in one transaction: added (with embeddings), changed (new versions), removed (archived). */
export async function applyMemoryMd(sql: ProjectSql, userId: string, input: MemoryMdInput): Promise<MemoryMdApplied> {
  const bullets = parseMarkdown(input.file, input.text);
  const planned = diffMarkdown(bullets, await currentFor(sql, userId, input.file), await referencedFor(sql, userId, bullets));
  const providers = await writeProviders(sql);
  const texts = [...new Set([...planned.added.map((a) => a.content), ...planned.changed.filter((c) => c.before.content !== c.after.content).map((c) => c.after.content)])];
  const embedded = await embedTexts(providers, texts);
  const vectors = new Map<string, MemoryVector[]>(texts.map((t, i) => [t, embedded[i]]));
  const vectorsFor = async (content: string) => vectors.get(content) ?? (await embedTexts(providers, [content]))[0];

  return sql.transaction(async (tx) => {
    // Re-read under lock: the diff that is written is the one against the locked rows.
    await lockForEdit(tx, userId, input.file, bullets);
    const current = await currentFor(tx, userId, input.file, true);
    const diff = diffMarkdown(bullets, current, await referencedFor(tx, userId, bullets, true));
    const batchId = randomUUID();
    const actor = actorOf(input.actor);
    const reason = `${input.file}.md edit`;
    // The added bullets in three statements (rows, vectors, events), not three per bullet.
    const added = await insertMemoryRows(
      tx,
      diff.added.map((a) => ({ userId, memoryType: a.memory_type, content: a.content, importance: a.importance_score })),
    );
    const addedVectors = await Promise.all(diff.added.map((a) => vectorsFor(a.content)));
    await writeEmbeddingsMany(tx, userId, added.map((m, i) => ({ memoryId: m.id, vectors: addedVectors[i] })));
    await recordEvents(tx, added.map((m) => ({ memoryId: m.id, type: "create", actor, after: snapshot(m), reason, batchId })));
    for (const c of diff.changed) {
      const [before] = await tx.query<MemoryRow>(`SELECT ${MEMORY_COLUMNS} FROM memories m WHERE m.id = $1 AND m.project_id = $2`, [c.id, tx.projectId]);
      const [row] = await tx.query<MemoryRow>(
        `UPDATE memories m SET memory_type = $2::memory_type, content = $3, content_key = $4, importance_score = $5,
                version = version + 1, updated_at = now()
          WHERE id = $1 AND project_id = $6 RETURNING ${MEMORY_COLUMNS}`,
        [c.id, c.after.memory_type, c.after.content, contentKey(c.after.content), c.after.importance_score, tx.projectId],
      );
      if (c.before.content !== c.after.content) await writeEmbeddings(tx, c.id, userId, await vectorsFor(c.after.content));
      await recordEvent(tx, { memoryId: c.id, type: "update", actor, before: snapshot(serializeMemory(before)), after: snapshot(serializeMemory(row)), reason, batchId });
    }
    const byId = new Map(current.map((m) => [m.id, m]));
    for (const a of diff.archived) {
      await setStatusRow(tx, byId.get(a.id)!, "archived", { type: "archive", actor, reason: `${reason}: bullet removed`, batchId });
    }
    return { ...diff, batch_id: batchId };
  });
}
