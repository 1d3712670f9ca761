// Model name -> tiktoken encoding. Families are matched by prefix so dated
// snapshots ("gpt-4o-2024-08-06") resolve like their family.

export type EncodingName = "o200k_base" | "cl100k_base";
export const ENCODINGS: readonly EncodingName[] = ["o200k_base", "cl100k_base"];

export type ModelTokenizer = {
  model: string;
  encoding: EncodingName;
  /** True when the model is unknown and o200k_base is a stand-in. */
  approximate: boolean;
};

const FAMILIES: { prefix: RegExp; encoding: EncodingName }[] = [
  { prefix: /^gpt-4o/, encoding: "o200k_base" },
  { prefix: /^gpt-4\.1/, encoding: "o200k_base" },
  { prefix: /^gpt-4\.5/, encoding: "o200k_base" },
  { prefix: /^gpt-5/, encoding: "o200k_base" },
  { prefix: /^chatgpt-4o/, encoding: "o200k_base" },
  { prefix: /^o[1-9](-|$)/, encoding: "o200k_base" },
  { prefix: /^gpt-4(-|$)/, encoding: "cl100k_base" },
  { prefix: /^gpt-3\.5/, encoding: "cl100k_base" },
  { prefix: /^text-embedding-(ada-002|3-)/, encoding: "cl100k_base" },
];

export const DEFAULT_MODEL = "gpt-4o";

export function resolveTokenizer(model: string | undefined | null): ModelTokenizer {
  const name = (model ?? "").trim() || DEFAULT_MODEL;
  const key = name.toLowerCase().replace(/^openai\//, "");
  const family = FAMILIES.find((f) => f.prefix.test(key));
  if (family) return { model: name, encoding: family.encoding, approximate: false };
  return { model: name, encoding: "o200k_base", approximate: true };
}
