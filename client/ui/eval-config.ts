import { absoluteTime } from "./format";

// The comparison's configuration changes as people read them. The API answers each value as
// JSON text (`{"similarity":0.6,...}`, `["fact","preference"]`); the page says
// "similarity 0.6, recency 0.2, importance 0.2" as the replay's variant labels do.

const FIELD_LABELS: Record<string, string> = {
  k: "k",
  protocol: "scoring protocol",
  weights: "weights",
  min_score: "min score",
  memory_types: "memory types",
  status: "status",
  embedding_model: "embedding model",
  as_of: "as of",
};

export const configFieldLabel = (field: string): string => FIELD_LABELS[field] ?? field.replace(/_/g, " ");

const WEIGHT_ORDER = ["similarity", "recency", "importance"];

/** One side's value of a changed field in plain words; "unset" for null. */
export function configValueText(field: string, value: string | null): string {
  if (value === null) return "unset";
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    // Plain strings (a model name, a protocol, an instant) are not JSON.
    return field === "as_of" ? absoluteTime(value) : value;
  }
  if (field === "as_of" && typeof parsed === "string") return absoluteTime(parsed);
  if (Array.isArray(parsed)) return parsed.length ? parsed.map(String).join(", ") : "none";
  if (parsed && typeof parsed === "object") {
    const entries = Object.entries(parsed as Record<string, unknown>);
    const rank = (k: string) => (WEIGHT_ORDER.includes(k) ? WEIGHT_ORDER.indexOf(k) : WEIGHT_ORDER.length);
    entries.sort(([a], [b]) => rank(a) - rank(b) || a.localeCompare(b));
    return entries.map(([k, v]) => `${k} ${typeof v === "object" ? JSON.stringify(v) : String(v)}`).join(", ");
  }
  return String(parsed);
}

/** "weights: similarity 0.6, ... in the base run, similarity 0.2, ... in this one". */
export function configChangeText(c: { field: string; base: string | null; head: string | null }): string {
  return `${configFieldLabel(c.field)}: ${configValueText(c.field, c.base)} in the base run, ${configValueText(c.field, c.head)} in this one`;
}
