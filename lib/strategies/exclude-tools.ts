import type { RoleMessage } from "./schemas";
import type { Dropped, Transformed } from "./strategy-types";

/**
 * Without tools: tool results are dropped; an assistant turn that only called tools
 * is dropped; one that also said something keeps its text without the calls.
 */
export function excludeTools(messages: RoleMessage[]) {
  const kept: { m: RoleMessage; index: number }[] = [];
  const dropped: Dropped[] = [];
  const transformed: Transformed[] = [];
  messages.forEach((m, index) => {
    if (m.role === "tool") {
      dropped.push({ index, reason: "tool result excluded (include_tools: false)" });
      return;
    }
    if (m.tool_calls?.length) {
      const hasText = typeof m.content === "string" ? m.content.trim() !== "" : m.content.length > 0;
      if (!hasText) {
        dropped.push({ index, reason: "tool call without text excluded (include_tools: false)" });
        return;
      }
      const { tool_calls: _calls, ...rest } = m;
      transformed.push({ index, action: "tool_calls_removed", reason: `${m.tool_calls.length} tool call(s) removed (include_tools: false)` });
      kept.push({ m: rest, index });
      return;
    }
    kept.push({ m, index });
  });
  return { kept, dropped, transformed };
}
