// The window knobs of the conversation page live in the URL (?model=&max=&limit=&leaf=),
// so a shared link reproduces the same view. Bad values are reported, never silently swapped.

/** The model every client default starts from (the API's own default for /history). */
export const DEFAULT_MODEL = "gpt-4o";
export const DEFAULT_MAX_TOKEN_LIMIT = 2000;

export type WindowSettings = { model: string; max_token_limit: number; message_limit: number | null };
export const DEFAULT_SETTINGS: WindowSettings = { model: DEFAULT_MODEL, max_token_limit: DEFAULT_MAX_TOKEN_LIMIT, message_limit: null };

/** Checks a max_token_limit as typed; null when it is a usable value. */
export function maxTokenLimitError(text: string): string | null {
  if (text.trim() === "") return "Enter a token budget (0 or more).";
  const n = Number(text);
  if (!Number.isInteger(n)) return "Whole tokens only (0 or more).";
  if (n < 0) return "max_token_limit must be 0 or more.";
  if (n > 10_000_000) return "max_token_limit can be at most 10,000,000.";
  return null;
}

/** Checks a message_limit as typed (empty = the default 500); null when usable. */
export function messageLimitError(text: string): string | null {
  if (text.trim() === "") return null;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) return "message_limit must be a whole number, 1 or more (empty means 500).";
  return null;
}

export function readWindowSettings(sp: URLSearchParams): WindowSettings {
  const model = sp.get("model")?.trim() || DEFAULT_MODEL;
  const max = sp.get("max");
  const limit = sp.get("limit");
  return {
    model,
    max_token_limit: max !== null && maxTokenLimitError(max) === null ? Number(max) : DEFAULT_MAX_TOKEN_LIMIT,
    message_limit: limit !== null && limit !== "" && messageLimitError(limit) === null ? Number(limit) : null,
  };
}

/** Writes the settings into `sp`, leaving defaults out so plain links stay plain. */
export function writeWindowSettings(sp: URLSearchParams, s: WindowSettings): URLSearchParams {
  const out = new URLSearchParams(sp);
  if (s.model !== DEFAULT_MODEL) out.set("model", s.model);
  else out.delete("model");
  if (s.max_token_limit !== DEFAULT_MAX_TOKEN_LIMIT) out.set("max", String(s.max_token_limit));
  else out.delete("max");
  if (s.message_limit !== null) out.set("limit", String(s.message_limit));
  else out.delete("limit");
  return out;
}
