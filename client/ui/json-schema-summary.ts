// Turns the JSON Schema that zod emits into short, human-readable type strings and
// flat field lists for the API reference page. Deliberately partial: it covers the
// shapes our schemas produce (objects, arrays, enums, anyOf with null, formats).

export type JsonSchema = {
  type?: string | string[];
  format?: string;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  description?: string;
  default?: unknown;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  $ref?: string;
};

export type FieldRow = { name: string; type: string; required: boolean; notes: string[]; description?: string };

const BIG = 2 ** 53 - 1;

export function typeLabel(s: JsonSchema | undefined): string {
  if (!s) return "any";
  if (s.$ref) return s.$ref.split("/").at(-1) ?? "object";
  if (s.const !== undefined) return JSON.stringify(s.const);
  if (s.enum) return s.enum.map((v) => JSON.stringify(v)).join(" | ");
  const alts = s.anyOf ?? s.oneOf;
  if (alts) {
    // A const UUID_NIL next to a uuid reads better as "uuid | UUID_NIL".
    return [...new Set(alts.map((a) => (a.const === "00000000-0000-0000-0000-000000000000" ? "UUID_NIL" : typeLabel(a))))].join(" | ");
  }
  const t = Array.isArray(s.type) ? s.type.join(" | ") : s.type;
  if (t === "array") return `${typeLabel(s.items)}[]`;
  if (t === "object" && !s.properties) return "object";
  if (t === "string" && s.format) return s.format === "date-time" ? "date-time" : s.format;
  return t ?? "any";
}

function notes(s: JsonSchema): string[] {
  const out: string[] = [];
  if (s.default !== undefined) out.push(`default ${JSON.stringify(s.default)}`);
  const base = s.anyOf?.find((a) => a.type !== "null") ?? s;
  const lo = base.minimum !== undefined && Math.abs(base.minimum) < BIG ? base.minimum : undefined;
  const hi = base.maximum !== undefined && Math.abs(base.maximum) < BIG ? base.maximum : undefined;
  if (lo !== undefined && hi !== undefined) out.push(`${lo.toLocaleString("en-US")}–${hi.toLocaleString("en-US")}`);
  else if (lo !== undefined) out.push(`≥ ${lo.toLocaleString("en-US")}`);
  else if (hi !== undefined) out.push(`≤ ${hi.toLocaleString("en-US")}`);
  if (base.maxLength !== undefined) out.push(`max ${base.maxLength.toLocaleString("en-US")} chars`);
  if (base.maxItems !== undefined) out.push(`max ${base.maxItems.toLocaleString("en-US")} items`);
  return out;
}

/** Top-level properties, plus one level into arrays/objects of objects ("messages[].query"). */
export function fieldRows(s: JsonSchema | undefined, prefix = "", depth = 0): FieldRow[] {
  if (!s?.properties) return [];
  const rows: FieldRow[] = [];
  for (const [name, p] of Object.entries(s.properties)) {
    const full = `${prefix}${name}`;
    rows.push({ name: full, type: typeLabel(p), required: s.required?.includes(name) ?? false, notes: notes(p), description: p.description ?? p.anyOf?.find((a) => a.description)?.description });
    if (depth < 2) {
      const inner = p.type === "array" ? p.items : p.anyOf?.find((a) => a.type === "object" && a.properties) ?? (p.properties ? p : undefined);
      if (inner?.properties) rows.push(...fieldRows(inner, `${full}${p.type === "array" ? "[]" : ""}.`, depth + 1));
    }
  }
  return rows;
}

export function paramNotes(s: JsonSchema): string[] {
  return notes(s);
}
