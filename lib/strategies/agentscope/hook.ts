import type { RoleMessage } from "../schemas";
import { HOOK_INSTRUCTION } from "./prompts";

export type HookWiring = "1.0" | "1.1";

/**
 * What AutoContextHook puts before the memory on every model call. In 1.0 (v1.0.12)
 * the agent's system prompt is the first input message and the instruction is appended
 * to it after a blank line; in 1.1 the hook sees only the memory, adds the instruction
 * as its own system message, and the agent puts its system prompt in front of that.
 * Without a system prompt both send the instruction alone.
 */
export function hookSystemMessages(systemPrompt: string, wiring: HookWiring): RoleMessage[] {
  const hasPrompt = systemPrompt.trim() !== "";
  if (!hasPrompt) return [{ role: "system", content: HOOK_INSTRUCTION }];
  if (wiring === "1.0") return [{ role: "system", content: `${systemPrompt}\n\n${HOOK_INSTRUCTION}` }];
  return [
    { role: "system", content: systemPrompt },
    { role: "system", content: HOOK_INSTRUCTION },
  ];
}
