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

// For ASCII text, NFKC is the identity and letters/digits are [a-z0-9] after lowercasing:
// a plain regex gives lexicalTokens' words several times faster. Anything else takes the
// Unicode-aware path.
const NON_ASCII = /[^\x00-\x7f]/;
function contentWords(sentence: string, ascii: boolean): string[] {
  const out: string[] = [];
  for (const w of ascii ? sentence.toLowerCase().split(/[^a-z0-9]+/) : lexicalTokens(sentence)) {
    if (w.length > 2 && !STOP.has(w)) out.push(w);
  }
  return out;
}

type Analysed = { sentences: string[]; keys: string[]; words: string[][] };

// An agent's older history is summarized again on every call with one turn more: the
// sentences and words of a message text are remembered (bounded; cleared when full)
// rather than split and tokenized hundreds of times per request.
const MAX_ANALYSED = 20_000;
const analysed = new Map<string, Analysed>();

/** Forgets every analysed text (lib/privacy: after an erasure, no erased text stays in memory). */
export function forgetAnalysedTexts(): void {
  analysed.clear();
}

function analyse(text: string): Analysed {
  let a = analysed.get(text);
  if (!a) {
    const ascii = !NON_ASCII.test(text);
    const sentences = splitSentences(text);
    a = { sentences, keys: sentences.map((s) => s.toLowerCase()), words: sentences.map((s) => contentWords(s, ascii)) };
    if (analysed.size >= MAX_ANALYSED) analysed.clear();
    analysed.set(text, a);
  }
  return a;
}

export function extractiveSummary(texts: string[], maxSentences: number): string[] {
  const sentences: string[] = [];
  const words: string[][] = [];
  // A sentence said again ("Noted, I will remember that.") is summarized once.
  const seen = new Set<string>();
  for (const t of texts) {
    const a = analyse(t);
    for (let i = 0; i < a.sentences.length; i++) {
      const key = a.keys[i];
      if (seen.has(key)) continue;
      seen.add(key);
      sentences.push(a.sentences[i]);
      words.push(a.words[i]);
    }
  }
  if (sentences.length <= maxSentences) return sentences;
  // Document frequency: in how many sentences each word occurs.
  const freq = new Map<string, number>();
  const lastSeen = new Map<string, number>();
  words.forEach((ws, i) => {
    for (const w of ws) {
      if (lastSeen.get(w) === i) continue;
      lastSeen.set(w, i);
      freq.set(w, (freq.get(w) ?? 0) + 1);
    }
  });
  // The best maxSentences by score (ties: the earlier sentence), kept sorted: a full
  // sort of thousands of sentences for eight of them is wasted work.
  const top: { i: number; score: number }[] = [];
  words.forEach((ws, i) => {
    let sum = 0;
    for (const w of ws) sum += freq.get(w) ?? 0;
    const score = ws.length ? sum / Math.sqrt(ws.length) : 0;
    if (top.length === maxSentences && score <= top[top.length - 1].score) return;
    let at = top.length;
    while (at > 0 && top[at - 1].score < score) at--;
    top.splice(at, 0, { i, score });
    if (top.length > maxSentences) top.pop();
  });
  return top.sort((a, b) => a.i - b.i).map((t) => sentences[t.i]);
}
