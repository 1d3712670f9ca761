export default function countSlice(task: {
  texts: string[];
  encoding: "o200k_base" | "cl100k_base";
  boundMs: number;
}): { tokens: Int32Array; approximate: Uint8Array };
