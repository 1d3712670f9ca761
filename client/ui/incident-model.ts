// Pure helpers of the incidents inbox (/incidents, issue 38): the words for each kind, status
// and severity, an incident's evidence as a sentence people read, the chart's days, and the
// page's filters in its URL (so Back, a reload and a link from a conversation show the same).
//
// The evidence is the detector's record of what fired the rule (lib/incidents). It is read
// field by field, each checked: a field this page does not know, or one missing, leaves the
// sentence shorter, never wrong; the incident's own `summary` always stands above it.

export const INCIDENT_KINDS = ["missed_memory", "restated_memory", "stale_memory", "dropped_reference", "over_context_window"] as const;
export type IncidentKind = (typeof INCIDENT_KINDS)[number];
export const INCIDENT_STATUSES = ["open", "acknowledged", "resolved", "false_positive"] as const;
export type IncidentStatus = (typeof INCIDENT_STATUSES)[number];
export const INCIDENT_SEVERITIES = ["high", "medium", "low"] as const;
export type IncidentSeverity = (typeof INCIDENT_SEVERITIES)[number];

export const KIND_LABEL: Record<IncidentKind, string> = {
  missed_memory: "Missed memory",
  restated_memory: "Restated memory",
  stale_memory: "Stale memory",
  dropped_reference: "Dropped reference",
  over_context_window: "Over the context window",
};

/** What each rule looks for, in one line (the filter's hint and the chart's legend title). */
export const KIND_HINT: Record<IncidentKind, string> = {
  missed_memory: "A memory that answers the user's message existed but was not in the prompt",
  restated_memory: "The user said again something already stored, and that memory was not in the prompt",
  stale_memory: "A memory in the prompt was corrected by the user soon after",
  dropped_reference: "The user referred back to a turn the history window had dropped",
  over_context_window: "The prompt was longer than the model's window less the reserved output",
};

/** Fill and swatch classes per kind: one hue each, legible in light and dark (chart and legend). */
export const KIND_FILL: Record<IncidentKind, string> = {
  missed_memory: "fill-red-500 dark:fill-red-400",
  restated_memory: "fill-amber-500 dark:fill-amber-400",
  stale_memory: "fill-violet-500 dark:fill-violet-400",
  dropped_reference: "fill-sky-500 dark:fill-sky-400",
  over_context_window: "fill-zinc-500 dark:fill-zinc-400",
};
export const KIND_SWATCH: Record<IncidentKind, string> = {
  missed_memory: "bg-red-500 dark:bg-red-400",
  restated_memory: "bg-amber-500 dark:bg-amber-400",
  stale_memory: "bg-violet-500 dark:bg-violet-400",
  dropped_reference: "bg-sky-500 dark:bg-sky-400",
  over_context_window: "bg-zinc-500 dark:bg-zinc-400",
};

export const STATUS_LABEL: Record<IncidentStatus, string> = {
  open: "Open",
  acknowledged: "Acknowledged",
  resolved: "Resolved",
  false_positive: "False positive",
};

/** The button that moves an incident to a status, and what the note is for. */
export const STATUS_ACTION: Record<IncidentStatus, { verb: string; done: string }> = {
  open: { verb: "Reopen", done: "Reopened" },
  acknowledged: { verb: "Acknowledge", done: "Acknowledged" },
  resolved: { verb: "Resolve", done: "Resolved" },
  false_positive: { verb: "False positive", done: "Marked a false positive" },
};

/** The actions an incident in `status` offers (its own status is never one of them). */
export function nextStatuses(status: IncidentStatus): IncidentStatus[] {
  if (status === "open") return ["acknowledged", "resolved", "false_positive"];
  if (status === "acknowledged") return ["resolved", "false_positive", "open"];
  return ["open"];
}

export const isKind = (v: unknown): v is IncidentKind => typeof v === "string" && (INCIDENT_KINDS as readonly string[]).includes(v);
export const isStatus = (v: unknown): v is IncidentStatus => typeof v === "string" && (INCIDENT_STATUSES as readonly string[]).includes(v);
export const isSeverity = (v: unknown): v is IncidentSeverity => typeof v === "string" && (INCIDENT_SEVERITIES as readonly string[]).includes(v);

/** "1st", "2nd", "3rd", "11th", "14th", "22nd". */
export function ordinal(n: number): string {
  const t = n % 100;
  if (t >= 11 && t <= 13) return `${n}th`;
  return `${n}${({ 1: "st", 2: "nd", 3: "rd" } as Record<number, string>)[n % 10] ?? "th"}`;
}

// ---------------------------------------------------------------------------------------------
// Evidence in plain words

/** A piece of the evidence sentence: plain text, a memory's text (in italics) or a quote. */
export type EvidencePart = { text: string } | { memory: string; id?: string } | { quote: string };

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec | null => (v && typeof v === "object" && !Array.isArray(v) ? (v as Rec) : null);
const str = (v: unknown): string | null => (typeof v === "string" && v.trim() !== "" ? v : null);
const num = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);

const shortDate = new Intl.DateTimeFormat("en-US", { month: "short", day: "numeric" });
const dayOf = (iso: string | null): string | null => {
  if (!iso) return null;
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? null : shortDate.format(d);
};

/** At most `max` characters on one line: a quote inside a sentence. */
export function clip(text: string, max = 140): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** The sentence of `text` holding `phrase` (the answer's "I don't know..."), else its start. */
export function sentenceWith(text: string, phrase: string | null, max = 140): string {
  if (phrase) {
    const at = text.toLowerCase().indexOf(phrase.toLowerCase());
    if (at >= 0) {
      const from = Math.max(0, ...[". ", "! ", "? ", "\n"].map((sep) => text.lastIndexOf(sep, at) + (text.lastIndexOf(sep, at) >= 0 ? sep.length : 0)));
      const ends = [". ", "! ", "? ", "\n"].map((sep) => text.indexOf(sep, at + phrase.length)).filter((i) => i >= 0);
      const to = ends.length ? Math.min(...ends) + 1 : text.length;
      return clip(text.slice(from, to), max);
    }
  }
  return clip(text, max);
}

/** Where the memory stood in the turn's prompt: "ranked 14th; k was 10", "was not in the prompt the agent sent". */
function placeClause(e: Rec): EvidencePart[] {
  if (e.prompt_source === "captured") return [{ text: " but was not in the prompt the agent sent" }];
  const reason = str(e.out_reason);
  if (reason) return [{ text: ` but was left out of the prompt (${reason})` }];
  const rank = num(e.rank);
  const k = num(e.k);
  if (rank === null) return [{ text: " but was not ranked" }, ...(k !== null ? [{ text: `; k was ${k}` }] : [])];
  return [{ text: ` and ranked ${ordinal(rank)}` }, ...(k !== null ? [{ text: `; k was ${k}` }] : [])];
}

/** "*Prefers aisle seats* existed since Oct 2" */
function memoryClause(e: Rec, verb: string): EvidencePart[] {
  const m = rec(e.memory);
  const content = m ? str(m.content) : null;
  if (!m || !content) return [];
  const since = dayOf(str(m.created_at));
  return [{ memory: clip(content, 120), id: str(m.id) ?? undefined }, { text: since ? ` ${verb} since ${since}` : ` ${verb}` }];
}

/**
 * An incident's evidence as a sentence, in parts (memory texts in italics, quotes quoted), from
 * the fields lib/incidents/rules.ts records per kind. Empty when the evidence carries nothing
 * this page knows how to say: the API's summary stands alone then.
 */
export function evidenceParts(kind: string, evidence: unknown): EvidencePart[] {
  const e = rec(evidence);
  if (!e) return [];
  let parts: EvidencePart[] = [];
  switch (kind) {
    case "missed_memory": {
      const mem = memoryClause(e, "existed");
      if (!mem.length) break;
      const answer = str(e.answer);
      parts = [...mem, ...placeClause(e), ...(answer ? [{ text: "; the agent answered " }, { quote: sentenceWith(answer, str(e.absence_phrase)) }] : [])];
      break;
    }
    case "restated_memory": {
      const mem = memoryClause(e, "was stored");
      if (!mem.length) break;
      const query = str(e.query);
      parts = [...(query ? [{ text: "The user wrote " }, { quote: clip(query) }, { text: ", yet " }] : []), ...mem, ...placeClause(e)];
      break;
    }
    case "stale_memory": {
      const mem = memoryClause(e, "was in the prompt");
      if (!mem.length) break;
      const correction = str(e.correcting_query);
      parts = [mem[0], { text: " was in the prompt" }, ...(correction ? [{ text: "; the user corrected it: " }, { quote: clip(correction) }] : [])];
      break;
    }
    case "dropped_reference": {
      const phrase = str(e.reference_phrase);
      const referenced = str(e.referenced_query);
      if (!phrase && !referenced) break;
      if (phrase) parts.push({ text: "The user referred back with " }, { quote: clip(phrase, 80) });
      if (referenced) parts.push({ text: phrase ? " to " : "The user referred back to " }, { quote: clip(referenced, 100) });
      const when = dayOf(str(e.referenced_at));
      if (when) parts.push({ text: ` (${when})` });
      const dropped = num(e.dropped_turns);
      const total = num(e.history_turns);
      parts.push({ text: dropped !== null && total !== null ? `, which the history window had dropped (${dropped} of ${total} earlier turns out)` : ", which the history window had dropped" });
      break;
    }
    case "over_context_window": {
      const sent = num(e.tokens);
      const window = num(e.context_window);
      const reserved = num(e.reserved_output_tokens) ?? 0;
      const model = str(e.model);
      if (sent === null || window === null) break;
      const f = (n: number) => n.toLocaleString("en-US");
      parts.push({
        text: `The prompt took ${f(sent)} tokens; ${model ? `${model}'s` : "the model's"} window is ${f(window)}${reserved ? ` less ${f(reserved)} reserved for the answer` : ""}, so it was ${f(sent - (window - reserved))} over`,
      });
      break;
    }
  }
  if (!parts.length) return [];
  // A full stop, unless the sentence ends on a quote that has its own ("…answered “Sure.”").
  const last = parts[parts.length - 1];
  if (!("quote" in last && /[.!?…]$/.test(last.quote))) parts.push({ text: "." });
  return parts;
}

/** The evidence sentence as plain text (quotes in typographic quotes): a title, a test. */
export function evidenceText(parts: EvidencePart[]): string {
  return parts.map((p) => ("text" in p ? p.text : "memory" in p ? p.memory : `“${p.quote}”`)).join("");
}

// ---------------------------------------------------------------------------------------------
// The chart: counts per kind per day

export type DayCounts = { day: string; counts: Partial<Record<IncidentKind, number>>; total: number };

/** A UTC day as YYYY-MM-DD. */
const isoDay = (t: number) => new Date(t).toISOString().slice(0, 10);

/**
 * The last `days` days up to `today` (UTC), oldest first, each with its counts per kind: a day
 * with no incident is there with zeros, so the chart's bars are evenly spaced in time.
 */
export function chartDays(rows: readonly { day: string; kind: string; count: number }[], days: number, today: number = Date.now()): DayCounts[] {
  const out: DayCounts[] = [];
  const index = new Map<string, DayCounts>();
  const end = Date.UTC(new Date(today).getUTCFullYear(), new Date(today).getUTCMonth(), new Date(today).getUTCDate());
  for (let i = days - 1; i >= 0; i--) {
    const d: DayCounts = { day: isoDay(end - i * 86_400_000), counts: {}, total: 0 };
    out.push(d);
    index.set(d.day, d);
  }
  for (const r of rows) {
    const d = index.get(r.day.slice(0, 10));
    if (!d || !isKind(r.kind)) continue;
    d.counts[r.kind] = (d.counts[r.kind] ?? 0) + r.count;
    d.total += r.count;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// The page's filters in its URL

export type IncidentFilters = {
  kind: IncidentKind | "";
  status: IncidentStatus | "all";
  severity: IncidentSeverity | "";
  user_id: string;
  app_id: string;
  conversation_id: string;
};

export const NO_FILTERS: IncidentFilters = { kind: "", status: "open", severity: "", user_id: "", app_id: "", conversation_id: "" };

/** The filters a URL asks for; an unknown value falls back to the default (the inbox opens on open incidents). */
export function parseIncidentQuery(sp: URLSearchParams): IncidentFilters {
  const kind = sp.get("kind");
  const status = sp.get("status");
  const severity = sp.get("severity");
  return {
    kind: isKind(kind) ? kind : "",
    status: status === "all" || isStatus(status) ? status : "open",
    severity: isSeverity(severity) ? severity : "",
    user_id: sp.get("user")?.trim() ?? "",
    app_id: sp.get("app")?.trim() ?? "",
    conversation_id: sp.get("conversation")?.trim() ?? "",
  };
}

export function encodeIncidentQuery(f: IncidentFilters): string {
  const sp = new URLSearchParams();
  if (f.kind) sp.set("kind", f.kind);
  if (f.status !== "open") sp.set("status", f.status);
  if (f.severity) sp.set("severity", f.severity);
  if (f.user_id) sp.set("user", f.user_id);
  if (f.app_id) sp.set("app", f.app_id);
  if (f.conversation_id) sp.set("conversation", f.conversation_id);
  return sp.toString();
}

/** The inbox's address showing one conversation's incidents (the conversation page's marks link here). */
export const incidentsHref = (f: Partial<IncidentFilters>) => {
  const q = encodeIncidentQuery({ ...NO_FILTERS, status: "all", ...f });
  return q ? `/incidents?${q}` : "/incidents";
};

/** Whether any filter narrows the list beyond the default (open incidents of every kind). */
export const isFiltered = (f: IncidentFilters) => encodeIncidentQuery(f) !== "";
