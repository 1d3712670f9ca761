import { lexicalTokens } from "../embeddings/lexical-embedder";

// A summary without a model: the sentences that carry the most frequent content words
// of the passage, in their original order. Honest about what it is (the caller labels
// it "extractive").

const STOP = new Set(
  "the a an and or but if then so to of in on at for with by from as is are was were be been it this that these those i you he she we they me my your our their what which who how when where do does did not no yes can could would should will just also than".split(" "),
);

export function splitSentences(text: string): string[] {
  return text
    .split(/(?<=[.!?。！？])\s+|\n+/u)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

export function extractiveSummary(texts: string[], maxSentences: number): string[] {
  const sentences = texts.flatMap(splitSentences);
  if (sentences.length <= maxSentences) return sentences;
  const freq = new Map<string, number>();
  const words = sentences.map((s) => lexicalTokens(s).filter((w) => w.length > 2 && !STOP.has(w)));
  for (const ws of words) for (const w of new Set(ws)) freq.set(w, (freq.get(w) ?? 0) + 1);
  const scored = sentences.map((s, i) => {
    const ws = words[i];
    const score = ws.length ? ws.reduce((a, w) => a + (freq.get(w) ?? 0), 0) / Math.sqrt(ws.length) : 0;
    return { i, s, score };
  });
  const top = [...scored].sort((a, b) => b.score - a.score || a.i - b.i).slice(0, maxSentences);
  return top.sort((a, b) => a.i - b.i).map((t) => t.s);
}
