import { ValidationError, type ErrorDetail } from "../errors/domain-errors";
import { ZEvalCaseInput, type EvalCaseInput } from "./schemas";

// Cases from a file: JSONL (one case body per line) or CSV (a header row naming columns).
// Every bad record is reported, each named by its line and field; nothing is written
// unless the whole file reads.

const MAX_PROBLEMS = 50;

function problem(record: string, field: string | undefined, message: string): ErrorDetail {
  return { field: field ? `${record}: ${field}` : record, message, record };
}

function parseRecord(raw: unknown, record: string, problems: ErrorDetail[]): EvalCaseInput | null {
  const r = ZEvalCaseInput.safeParse(raw);
  if (r.success) return r.data;
  for (const i of r.error.issues.slice(0, 5)) problems.push(problem(record, i.path.map(String).join(".") || undefined, i.message));
  return null;
}

function fail(problems: ErrorDetail[]): never {
  const first = problems[0];
  throw new ValidationError(`The file has ${problems.length} bad record(s); first: ${first.field}: ${first.message}`, problems.slice(0, MAX_PROBLEMS), "invalid_eval_file");
}

export function parseJsonlCases(text: string): EvalCaseInput[] {
  const out: EvalCaseInput[] = [];
  const problems: ErrorDetail[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    if (!line.trim()) return;
    const record = `line ${i + 1}`;
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch {
      problems.push(problem(record, undefined, "not valid JSON"));
      return;
    }
    const c = parseRecord(raw, record, problems);
    if (c) out.push(c);
  });
  if (problems.length) fail(problems);
  if (!out.length) fail([problem("file", undefined, "no cases")]);
  return out;
}

/** RFC 4180 rows: quoted fields may hold commas, quotes ("") and line breaks. */
export function csvRows(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"' && field === "") quoted = true;
    else if (ch === ",") {
      row.push(field);
      field = "";
    } else if (ch === "\n" || ch === "\r") {
      if (ch === "\r" && text[i + 1] === "\n") i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = "";
    } else field += ch;
  }
  if (field !== "" || row.length) {
    row.push(field);
    rows.push(row);
  }
  return rows.filter((r) => r.some((f) => f.trim() !== ""));
}

const list = (s: string | undefined) => (s ?? "").split("|").map((x) => x.trim()).filter(Boolean);

export const CSV_COLUMNS = ["user_id", "question", "expected_memory_ids", "expected_texts", "expected_turns", "category", "tags", "external_id"] as const;

export function parseCsvCases(text: string): EvalCaseInput[] {
  const rows = csvRows(text.replace(/^\uFEFF/, ""));
  if (!rows.length) fail([problem("file", undefined, "no header row")]);
  const header = rows[0].map((h) => h.trim().toLowerCase());
  const problems: ErrorDetail[] = [];
  for (const need of ["user_id", "question"]) if (!header.includes(need)) problems.push(problem("line 1", need, "missing column"));
  for (const h of header) if (!(CSV_COLUMNS as readonly string[]).includes(h)) problems.push(problem("line 1", h, `unknown column (known: ${CSV_COLUMNS.join(", ")})`));
  if (problems.length) fail(problems);
  const out: EvalCaseInput[] = [];
  rows.slice(1).forEach((cells, i) => {
    const record = `line ${i + 2}`;
    const get = (col: string) => {
      const at = header.indexOf(col);
      return at < 0 ? undefined : cells[at];
    };
    const turns = list(get("expected_turns")).map((t) => {
      const [conversation_id, message_id] = t.split(":");
      return { conversation_id, message_id };
    });
    const c = parseRecord(
      {
        user_id: get("user_id"),
        question: get("question"),
        expected: { memory_ids: list(get("expected_memory_ids")), texts: list(get("expected_texts")), turns },
        category: get("category")?.trim() || null,
        tags: list(get("tags")),
        ...(get("external_id")?.trim() ? { external_id: get("external_id")!.trim() } : {}),
      },
      record,
      problems,
    );
    if (c) out.push(c);
  });
  if (problems.length) fail(problems);
  if (!out.length) fail([problem("file", undefined, "no cases")]);
  return out;
}
