import type { BudgetKey } from "@/client/ui/inspect-model";

/** One colour per prompt section: bubble borders, bar segments and legend swatches agree. */
export const SECTION_STYLE: Record<BudgetKey, { label: string; bar: string; border: string; text: string; hint: string }> = {
  system: { label: "System", bar: "bg-violet-500", border: "border-l-violet-500", text: "text-violet-700 dark:text-violet-300", hint: "The system prompt (and a strategy's system message)" },
  memories: { label: "Long-term memories", bar: "bg-amber-500", border: "border-l-amber-500", text: "text-amber-700 dark:text-amber-300", hint: "Retrieved memories injected into the system message" },
  history: { label: "History", bar: "bg-sky-500", border: "border-l-sky-500", text: "text-sky-700 dark:text-sky-300", hint: "Conversation history after the strategy" },
  query: { label: "Query", bar: "bg-indigo-600 dark:bg-indigo-500", border: "border-l-indigo-600 dark:border-l-indigo-500", text: "text-indigo-700 dark:text-indigo-300", hint: "The user's query (plus reply priming)" },
  temporary: { label: "Temporary", bar: "bg-pink-500", border: "border-l-pink-500", text: "text-pink-700 dark:text-pink-300", hint: "Used once, not stored" },
  reserved_output: {
    label: "Reserved output",
    bar: "bg-[repeating-linear-gradient(135deg,var(--color-zinc-400)_0_3px,var(--color-zinc-300)_3px_6px)] dark:bg-[repeating-linear-gradient(135deg,var(--color-zinc-600)_0_3px,var(--color-zinc-700)_3px_6px)]",
    border: "border-l-zinc-400",
    text: "text-zinc-600 dark:text-zinc-400",
    hint: "Kept free for the model's answer",
  },
  free: { label: "Free", bar: "bg-transparent", border: "border-l-zinc-200", text: "text-zinc-500 dark:text-zinc-400", hint: "Unused context window" },
};
