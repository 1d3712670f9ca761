import { markdownItemsLazily } from "./markdown-items";
import { runSteps, STEP, type Steps } from "./steps";
import { ImportLimitError } from "./upload-limits";
import { sha256Hex } from "./stable-id";
import type { ImportMemory, ParsedImport } from "./types";

// Memory kept as files, two layouts (uploaded as a zip of the folder, or one Markdown file):
// - the /memories directory a client of Anthropic's memory tool (memory_20250818) keeps:
//   the model views, creates and edits files under /memories, and the application keeps
//   one such folder per user, so memories/<user>/... (or <user>/... at the zip's root)
//   names the user; files directly at the root belong to end_user_id (default "default");
// - Claude Code's auto memory: MEMORY.md (an index, loaded each session) beside topic
//   files (debugging.md, ...), for one user.
// Markdown files give one memory per list item (a file without a list: the file), other
// text files one memory each; the path (and line) is kept as provenance. Empty files,
// temporary files (editor backups, swap files, .tmp, dot files) and binary files are left
// out. MEMORY.md lines that only point to a topic file are not memories themselves.

/** maxRecords: memories past it are an ImportLimitError (records), thrown as soon as they are found. */
/** symlinks: the zip's symbolic links (name -> target as stored), read through to the file they name. */
export type MemoryDirOptions = { app_id?: string; end_user_id?: string | null; maxRecords?: number; symlinks?: Map<string, string> };

const TEMP = /(^|\/)(\.[^/]*|#[^/]*#|[^/]*~|[^/]*\.(tmp|temp|swp|swo|bak|orig|part|crdownload))$|(^|\/)(__MACOSX|\.DS_Store|Thumbs\.db)(\/|$)/i;
const TEXT = /\.(md|markdown|txt|text|json|ya?ml|xml|csv|org|rst)$|(^|\/)[^./]+$/i;

export function parseMemoryFiles(files: Map<string, Uint8Array>, opts: MemoryDirOptions = {}): ParsedImport {
  return runSteps(memoryFileSteps(files, opts));
}

function* memoryFileSteps(files: Map<string, Uint8Array>, opts: MemoryDirOptions): Steps<ParsedImport> {
  const out: ParsedImport = { format: "memory-dir", source: "memory-dir", conversations: [], memories: [], problems: [], skipped: 0 };
  // A zip of "memories/" (or of a folder holding MEMORY.md) has that folder as its first segment: drop it.
  const names = [...files.keys()];
  const common = commonFolder(names);
  const rel = (n: string) => (common ? n.slice(common.length + 1) : n);
  const claudeCode = names.some((n) => rel(n) === "MEMORY.md");
  const seen = new Set<string>();
  const max = opts.maxRecords ?? Infinity;
  const sdkLayout = !claudeCode && names.some((n) => rel(n).split("/").slice(0, -1).includes("memories"));
  const unrepresented: Record<string, number> = {};
  out.unrepresented = unrepresented;
  for (const [name, stored] of [...files].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const path = rel(name);
    if (TEMP.test(path) || !TEXT.test(path)) {
      out.skipped!++;
      continue;
    }
    let bytes = stored;
    const link = opts.symlinks?.get(name);
    if (link !== undefined) {
      // The memory tool reads through a link that stays inside the memory root; one that leaves it, or names nothing, is refused.
      const target = resolveLink(name, link);
      const to = target === null ? undefined : files.get(target);
      if (to === undefined || opts.symlinks!.has(target!)) {
        out.problems.push({ record: path, message: `a symbolic link to ${JSON.stringify(link)} that names no file in the folder: left out` });
        continue;
      }
      if (!TEMP.test(rel(target!)) && TEXT.test(rel(target!))) {
        // The file it names is imported under its own path: the link is another name for it.
        out.skipped!++;
        unrepresented.memory_dir_symlink = (unrepresented.memory_dir_symlink ?? 0) + 1;
        continue;
      }
      bytes = to;
    }
    const decoded = decode(bytes);
    if (decoded === null) {
      out.problems.push({ record: path, message: "binary, not text (a NUL byte): left out" });
      continue;
    }
    const text = decoded.text;
    if (!text.trim()) {
      out.skipped!++;
      continue;
    }
    const parts = path.split("/");
    // Where the user's memory root is: Anthropic's SDK keeps <base>/memories/ (BetaLocalFilesystemMemoryTool),
    // so a folder per user is <user>/memories/...; Memscope's own export is memories/<user>/...; a bare folder is <user>/...
    const at = sdkLayout ? parts.slice(0, -1).indexOf("memories") : -1;
    let user: string;
    let inUser: string;
    if (claudeCode) {
      user = opts.end_user_id ?? "claude-code";
      inUser = path;
    } else if (at >= 0) {
      // <user>/memories/...: that user's; memories/... (one base folder zipped): end_user_id's
      user = at >= 1 ? parts[at - 1] : (opts.end_user_id ?? "default");
      inUser = parts.slice(at + 1).join("/");
    } else if (parts.length > 1) {
      user = parts[0];
      inUser = parts.slice(1).join("/");
    } else {
      user = opts.end_user_id ?? "default";
      inUser = path;
    }
    if (!inUser) {
      out.skipped!++;
      continue;
    }
    // The path the memory tool itself would name: relative to the user's memory root.
    const provenance = claudeCode ? `/memories/${path}` : `/memories/${inUser}`;
    // Problems name the file as it is in the zip.
    const recordPath = at >= 0 ? path : `/memories/${path}`;
    if (decoded.encoding !== "utf-8") unrepresented.memory_dir_latin1_decoded = (unrepresented.memory_dir_latin1_decoded ?? 0) + 1;
    const md = /\.(md|markdown)$/i.test(path);
    // Counted first, without parsing: a file of a million list items is refused in milliseconds.
    if (md && listItemLines(text) > max) throw new ImportLimitError("records", `${path} has more than ${max} list items`);
    const items = md ? markdownItemsLazily(text, max - out.memories.length) : [];
    const listed = md && /^\s{0,3}(?:[-*+]|\d{1,3}[.)])\s+/m.test(text);
    const add = (content: string, line: number | null, section: string | null) => {
      const c = content.trim();
      if (!c) return;
      const externalId = `memory-dir:${user}:${inUser}:${sha256Hex(c)}`;
      if (seen.has(externalId)) return;
      seen.add(externalId);
      if (out.memories.length >= max) throw new ImportLimitError("records", `more than ${max} memories`);
      out.memories.push({
        externalId,
        record: `${recordPath}${line ? `:${line}` : ""}`,
        user_id: user.slice(0, 200),
        app_id: opts.app_id ?? (claudeCode ? "claude-code" : "memory-tool"),
        memory_type: "fact",
        content: c.slice(0, 10_000),
        structured_data: { source: "memory-dir", kind: claudeCode ? "claude_code_memory" : "memory_tool_file", path: provenance, ...(line ? { line } : {}), ...(section ? { section } : {}), ...(decoded.encoding !== "utf-8" ? { encoding: decoded.encoding } : {}), ...(link !== undefined ? { symlink: link } : {}) },
        status: "active",
        history: [],
      } satisfies ImportMemory);
    };
    if (listed) {
      let n = 0;
      for (const it of items) {
        if (++n % STEP === 0) yield;
        // MEMORY.md's index lines ("- [Debugging](debugging.md)") point to a topic file, imported on its own.
        if (/^\[[^\]]*\]\([^)]+\.md\)\s*(?:[-–—:].{0,80})?$/.test(it.text) && claudeCode) continue;
        add(it.text, it.line, it.section);
      }
    } else {
      add(text, null, null);
    }
  }
  return out;
}

/** Lines that open a list item outside a code fence: each is one item (markdown-items.ts), so more of them than the limit is over it. */
function listItemLines(text: string): number {
  let n = 0;
  let fence = false;
  for (let at = 0; at < text.length; ) {
    const nl = text.indexOf("\n", at);
    const end = nl < 0 ? text.length : nl;
    let i = at;
    while (i < end && i - at < 4 && (text.charCodeAt(i) === 32 || text.charCodeAt(i) === 9)) i++;
    const c = text.charCodeAt(i);
    if ((c === 96 || c === 126) && (text.startsWith("```", i) || text.startsWith("~~~", i))) fence = !fence;
    else if (!fence && i - at <= 3) {
      if ((c === 45 || c === 42 || c === 43) && (text.charCodeAt(i + 1) === 32 || text.charCodeAt(i + 1) === 9)) n++;
      else if (c >= 48 && c <= 57) {
        let j = i;
        while (j < end && j - i < 3 && text.charCodeAt(j) >= 48 && text.charCodeAt(j) <= 57) j++;
        const d = text.charCodeAt(j);
        if ((d === 46 || d === 41) && (text.charCodeAt(j + 1) === 32 || text.charCodeAt(j + 1) === 9)) n++;
      }
    }
    at = end + 1;
  }
  return n;
}

function commonFolder(names: string[]): string | null {
  if (!names.length) return null;
  const first = names[0].split("/")[0];
  if (!names.every((n) => n.includes("/") && n.split("/")[0] === first)) return null;
  // Strip the wrapper only when it is the memories folder itself, or a folder that holds MEMORY.md.
  if (first === "memories" || first === "memory" || names.includes(`${first}/MEMORY.md`)) return first;
  return null;
}

/**
 * The file's text: UTF-8, else (bytes that are not UTF-8, as an editor on Windows or an old
 * Latin-1 system writes) Windows-1252, the superset of Latin-1 browsers use for it; null for a
 * binary file (a NUL byte).
 */
function decode(bytes: Uint8Array): { text: string; encoding: "utf-8" | "windows-1252" } | null {
  if (bytes.includes(0)) return null;
  try {
    return { text: new TextDecoder("utf-8", { fatal: true }).decode(bytes).replace(/^\uFEFF/, ""), encoding: "utf-8" };
  } catch {
    return { text: new TextDecoder("windows-1252").decode(bytes), encoding: "windows-1252" };
  }
}

/** A link's target as a zip entry name (relative to the link's folder; absolute or climbing out: null). */
function resolveLink(name: string, target: string): string | null {
  if (target.startsWith("/")) return null;
  const out = name.split("/").slice(0, -1);
  for (const seg of target.split("/")) {
    if (seg === "" || seg === ".") continue;
    if (seg === "..") {
      if (!out.length) return null;
      out.pop();
    } else out.push(seg);
  }
  return out.join("/");
}
