import type { MemoryType } from "../memories/schemas";

type M = { memory_type: MemoryType; content: string };

const HEADINGS: [MemoryType, string][] = [
  ["preference", "## User Preferences"],
  ["fact", "## Known Facts"],
  ["pattern", "## User Patterns"],
  ["skill", "## Proven Skills"],
];

/** The design doc's _format_memories_for_context: "# USER MEMORY" with a section per type. */
export function formatUserMemory(memories: M[]): string {
  const sections = HEADINGS.flatMap(([type, heading]) => {
    const items = memories.filter((m) => m.memory_type === type);
    return items.length ? [`${heading}\n${items.map((m) => `- ${m.content}`).join("\n")}`] : [];
  });
  return sections.length ? `# USER MEMORY\n\n${sections.join("\n\n")}` : "";
}

/** The same memories as one tagged block, for prompts that keep instructions apart. */
export function formatMemoryBlock(memories: M[]): string {
  if (!memories.length) return "";
  return `<long_term_memory>\n${memories.map((m) => `- [${m.memory_type}] ${m.content}`).join("\n")}\n</long_term_memory>`;
}

export function formatMemories(memories: M[], format: "user_memory" | "xml_block"): string {
  return format === "user_memory" ? formatUserMemory(memories) : formatMemoryBlock(memories);
}
