import { ValidationError } from "../../errors/domain-errors";
import type { RoleMessage } from "../schemas";
import type { Transformed } from "../strategy-types";

/**
 * Kept tool results whose call was cut, and kept tool calls whose result was cut, where the
 * input had both: the frameworks cut by count or tokens, not by tool pairs, and a provider
 * may reject such a prompt. One plain-words entry per message, naming the framework.
 */
export function unpairedNotes(input: RoleMessage[], out: RoleMessage[], sourceIndex: number[], framework: string): Transformed[] {
  const callsIn = new Set<string>();
  const resultsIn = new Set<string>();
  for (const m of input) {
    for (const c of m.tool_calls ?? []) callsIn.add(c.id);
    if (m.role === "tool" && m.tool_call_id) resultsIn.add(m.tool_call_id);
  }
  const callsOut = new Set<string>();
  const resultsOut = new Set<string>();
  for (const m of out) {
    for (const c of m.tool_calls ?? []) callsOut.add(c.id);
    if (m.role === "tool" && m.tool_call_id) resultsOut.add(m.tool_call_id);
  }
  const notes: Transformed[] = [];
  const seen = new Set<number>();
  out.forEach((m, i) => {
    const index = sourceIndex[i];
    if (index < 0 || seen.has(index)) return;
    if (m.role === "tool" && m.tool_call_id && callsIn.has(m.tool_call_id) && !callsOut.has(m.tool_call_id)) {
      seen.add(index);
      notes.push({ index, action: "kept_unpaired", reason: `${framework} kept this tool result although its call was cut` });
    }
    const missing = (m.tool_calls ?? []).filter((c) => resultsIn.has(c.id) && !resultsOut.has(c.id));
    if (missing.length) {
      seen.add(index);
      notes.push({
        index,
        action: "kept_unpaired",
        reason: `${framework} kept this tool call although its result was cut (${missing.map((c) => c.name).join(", ")})`,
      });
    }
  });
  return notes;
}

/** The framework itself fails or answers something unusable here: a 422 that names its behaviour. */
export function frameworkRefuses(field: string, message: string): ValidationError {
  return new ValidationError(message, [{ field, message }], "unprocessable");
}
