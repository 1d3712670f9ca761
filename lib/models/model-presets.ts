import { resolveTokenizer, type EncodingName } from "../tokens/registry";

// Known models: context window, encoding, and whether counting is exact (an OpenAI
// model counted with its own tiktoken encoding). Overridable in settings.

export type ModelPreset = { model: string; context_window: number; encoding: EncodingName; exact: boolean };

export const BUILTIN_PRESETS: ModelPreset[] = [
  { model: "gpt-4o", context_window: 128_000, encoding: "o200k_base", exact: true },
  { model: "gpt-4o-mini", context_window: 128_000, encoding: "o200k_base", exact: true },
  { model: "gpt-4.1", context_window: 1_047_576, encoding: "o200k_base", exact: true },
  { model: "gpt-4.1-mini", context_window: 1_047_576, encoding: "o200k_base", exact: true },
  { model: "gpt-5", context_window: 400_000, encoding: "o200k_base", exact: true },
  { model: "o3", context_window: 200_000, encoding: "o200k_base", exact: true },
  { model: "o4-mini", context_window: 200_000, encoding: "o200k_base", exact: true },
  { model: "gpt-4-turbo", context_window: 128_000, encoding: "cl100k_base", exact: true },
  { model: "gpt-4", context_window: 8_192, encoding: "cl100k_base", exact: true },
  { model: "gpt-3.5-turbo", context_window: 16_385, encoding: "cl100k_base", exact: true },
  { model: "claude-sonnet-4", context_window: 200_000, encoding: "o200k_base", exact: false },
  { model: "llama-3.1-8b-instruct", context_window: 131_072, encoding: "o200k_base", exact: false },
];

/** Context window used for a model nobody configured. */
export const DEFAULT_CONTEXT_WINDOW = 128_000;

/** The preset for a model: settings first, then the built-ins, then a flagged guess. */
export function presetFor(model: string, overrides: readonly ModelPreset[] = []): ModelPreset {
  const key = model.trim().toLowerCase();
  const found = overrides.find((p) => p.model.toLowerCase() === key) ?? BUILTIN_PRESETS.find((p) => p.model === key);
  if (found) return found;
  const tok = resolveTokenizer(model);
  return { model, context_window: DEFAULT_CONTEXT_WINDOW, encoding: tok.encoding, exact: false };
}
