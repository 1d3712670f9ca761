import { seededRandom } from "../../lib/evals/metrics";
// Deterministic, varied English chat text for the benchmarks: no network, no data set.
// Sentences are assembled from templates and word lists over many topics, so the token
// mix (common words, names, numbers, code identifiers, punctuation) resembles real
// assistant traffic rather than a repeated lorem ipsum.

export type Rng = () => number;

/** mulberry32: small, fast, seedable (the evals' bootstrap uses the same). */
export const makeRng: (seed: number) => Rng = seededRandom;

const pick = <T>(rng: Rng, xs: readonly T[]): T => xs[Math.floor(rng() * xs.length)];
const cap = (s: string) => s[0].toUpperCase() + s.slice(1);
const int = (rng: Rng, lo: number, hi: number) => lo + Math.floor(rng() * (hi - lo + 1));

const TOPICS = [
  {
    nouns: ["database", "index", "query planner", "transaction", "migration", "replica", "connection pool", "table", "foreign key", "vacuum job"],
    verbs: ["rebuild", "tune", "partition", "inspect", "back up", "restore", "shard", "lock", "analyze", "reindex"],
    adjs: ["slow", "consistent", "stale", "sequential", "concurrent", "durable", "fragmented", "indexed"],
    idents: ["pg_stat_statements", "EXPLAIN ANALYZE", "work_mem", "created_at", "conversation_id", "autovacuum"],
  },
  {
    nouns: ["recipe", "oven", "sourdough starter", "dough", "sauce", "marinade", "cast-iron pan", "spice blend", "stock", "pastry"],
    verbs: ["knead", "simmer", "roast", "season", "proof", "whisk", "braise", "fold", "chill", "caramelize"],
    adjs: ["crispy", "tender", "savory", "golden", "fluffy", "tangy", "smoky", "rich"],
    idents: ["220°C", "350°F", "two tablespoons", "a pinch of salt", "48 hours", "medium heat"],
  },
  {
    nouns: ["itinerary", "train pass", "hostel", "museum", "ferry", "mountain trail", "visa", "old town", "night market", "airport transfer"],
    verbs: ["book", "visit", "explore", "reserve", "hike", "cancel", "compare", "plan", "pack for", "skip"],
    adjs: ["crowded", "scenic", "affordable", "remote", "historic", "quiet", "expensive", "walkable"],
    idents: ["Lisbon", "Kyoto", "Patagonia", "the Dolomites", "Marrakesh", "Reykjavík", "Hanoi", "Vancouver"],
  },
  {
    nouns: ["React component", "hook", "API route", "test suite", "build step", "dependency", "type error", "bundle", "cache", "feature flag"],
    verbs: ["refactor", "memoize", "deploy", "debug", "mock", "lazy-load", "profile", "rename", "split", "upgrade"],
    adjs: ["flaky", "typed", "asynchronous", "deprecated", "idempotent", "minified", "stateless", "reactive"],
    idents: ["useEffect", "getServerSideProps", "tsconfig.json", "npm run build", "Promise.all", "fetch()", "zod.parse"],
  },
  {
    nouns: ["budget", "index fund", "mortgage", "tax return", "emergency fund", "pension", "invoice", "credit card", "savings account", "portfolio"],
    verbs: ["rebalance", "refinance", "deduct", "diversify", "track", "consolidate", "allocate", "file", "pay off", "review"],
    adjs: ["fixed", "variable", "long-term", "tax-free", "monthly", "risky", "conservative", "compounded"],
    idents: ["4.5%", "$1,200", "€350", "Q3", "the 50/30/20 rule", "APR", "ETF"],
  },
  {
    nouns: ["training plan", "tempo run", "rest day", "squat", "protein intake", "heart rate", "marathon", "warm-up", "stretching routine", "injury"],
    verbs: ["increase", "recover from", "schedule", "measure", "strengthen", "avoid", "taper", "log", "alternate", "track"],
    adjs: ["aerobic", "explosive", "gradual", "sore", "hydrated", "intense", "steady", "balanced"],
    idents: ["5 km", "zone 2", "3 sets of 8", "VO2 max", "140 bpm", "21.1 km"],
  },
  {
    nouns: ["essay", "thesis statement", "citation", "paragraph", "outline", "draft", "bibliography", "argument", "abstract", "conclusion"],
    verbs: ["revise", "summarize", "cite", "restructure", "shorten", "proofread", "expand", "clarify", "translate", "paraphrase"],
    adjs: ["concise", "persuasive", "formal", "vague", "original", "redundant", "coherent", "academic"],
    idents: ["APA 7th edition", "MLA", "Chicago style", "1,500 words", "the second section", "footnote 12"],
  },
  {
    nouns: ["houseplant", "tomato seedling", "compost bin", "raised bed", "fertilizer", "pruning shear", "succulent", "irrigation line", "mulch", "greenhouse"],
    verbs: ["water", "repot", "prune", "transplant", "fertilize", "harvest", "propagate", "shade", "mulch", "sow"],
    adjs: ["leggy", "overwatered", "drought-tolerant", "shady", "acidic", "perennial", "yellowing", "sturdy"],
    idents: ["pH 6.5", "Monstera deliciosa", "every ten days", "late March", "NPK 10-10-10", "south-facing window"],
  },
] as const;

const OPENERS = [
  "Sure, here is how I would approach it.",
  "Good question.",
  "Short answer: it depends on your constraints.",
  "Here's a practical way to think about it.",
  "That's a common problem.",
  "Let me walk you through it step by step.",
  "Yes, and there are a couple of caveats.",
  "It helps to separate the two concerns first.",
  "Based on what you described,",
  "In most cases the simplest option works best.",
];

const CONNECTORS = ["First,", "Then", "After that,", "Meanwhile,", "However,", "In practice,", "If possible,", "Finally,", "Also,", "Otherwise,", "As a rule of thumb,", "For example,"];

const QUESTION_TEMPLATES = [
  (t: Topic, r: Rng) => `How do I ${pick(r, t.verbs)} the ${pick(r, t.nouns)} without making it ${pick(r, t.adjs)}?`,
  (t: Topic, r: Rng) => `What's the best way to ${pick(r, t.verbs)} a ${pick(r, t.adjs)} ${pick(r, t.nouns)}?`,
  (t: Topic, r: Rng) => `Can you explain why my ${pick(r, t.nouns)} is ${pick(r, t.adjs)} after I ${pick(r, t.verbs)} the ${pick(r, t.nouns)}?`,
  (t: Topic, r: Rng) => `Is ${pick(r, t.idents)} a good idea for the ${pick(r, t.nouns)}, or should I ${pick(r, t.verbs)} it instead?`,
  (t: Topic, r: Rng) => `Quick one: should I ${pick(r, t.verbs)} the ${pick(r, t.nouns)} before or after the ${pick(r, t.nouns)}?`,
  (t: Topic, r: Rng) => `Thanks! And what about ${pick(r, t.idents)}? My ${pick(r, t.nouns)} still feels ${pick(r, t.adjs)}.`,
  (t: Topic, r: Rng) => `I tried to ${pick(r, t.verbs)} the ${pick(r, t.nouns)} like you said but it became ${pick(r, t.adjs)}. What did I miss?`,
  (t: Topic, r: Rng) => `Compare ${pick(r, t.idents)} and ${pick(r, t.idents)} for a ${pick(r, t.adjs)} ${pick(r, t.nouns)}, please.`,
];

const SENTENCE_TEMPLATES = [
  (t: Topic, r: Rng) => `${pick(r, CONNECTORS)} ${pick(r, t.verbs)} the ${pick(r, t.nouns)} so it stays ${pick(r, t.adjs)}.`,
  (t: Topic, r: Rng) => `A ${pick(r, t.adjs)} ${pick(r, t.nouns)} usually means the ${pick(r, t.nouns)} needs attention.`,
  (t: Topic, r: Rng) => `${pick(r, CONNECTORS)} keep an eye on ${pick(r, t.idents)}, because it affects how the ${pick(r, t.nouns)} behaves.`,
  (t: Topic, r: Rng) => `Many people ${pick(r, t.verbs)} the ${pick(r, t.nouns)} too early, which leaves it ${pick(r, t.adjs)}.`,
  (t: Topic, r: Rng) => `If the ${pick(r, t.nouns)} is ${pick(r, t.adjs)}, try to ${pick(r, t.verbs)} it around ${pick(r, t.idents)} and check again in ${int(r, 2, 30)} minutes.`,
  (t: Topic, r: Rng) => `You don't need to ${pick(r, t.verbs)} every ${pick(r, t.nouns)}; focus on the ${pick(r, t.adjs)} ones.`,
  (t: Topic, r: Rng) => `${int(r, 2, 9)}. ${cap(pick(r, t.verbs))} the ${pick(r, t.nouns)} (about ${int(r, 5, 95)}% of the time this is enough).`,
  (t: Topic, r: Rng) => `The trade-off is simple: a ${pick(r, t.adjs)} ${pick(r, t.nouns)} versus a ${pick(r, t.adjs)} ${pick(r, t.nouns)}.`,
  (t: Topic, r: Rng) => `Note that ${pick(r, t.idents)} only helps when the ${pick(r, t.nouns)} is already ${pick(r, t.adjs)}.`,
  (t: Topic, r: Rng) => `I'd ${pick(r, t.verbs)} the ${pick(r, t.nouns)} once, measure, and only then ${pick(r, t.verbs)} the ${pick(r, t.nouns)}.`,
];

type Topic = (typeof TOPICS)[number];

function wordCount(s: string): number {
  let n = 0;
  for (const w of s.split(/\s+/)) if (w) n++;
  return n;
}

/** Trims to exactly `n` words (ending with a period if it was cut mid-sentence). */
function clipWords(s: string, n: number): string {
  const words = s.split(/\s+/).filter(Boolean);
  if (words.length <= n) return words.join(" ");
  let out = words.slice(0, n).join(" ");
  if (!/[.!?]$/.test(out)) out = out.replace(/[,;:]$/, "") + ".";
  return out;
}

export type Turn = { query: string; answer: string };

/** A generator of turns; conversations drift between topics like real ones. */
export function makeTurnGenerator(seed: number, opts: { minAnswerWords?: number; maxAnswerWords?: number } = {}) {
  const rng = makeRng(seed);
  const minW = opts.minAnswerWords ?? 20;
  const maxW = opts.maxAnswerWords ?? 120;
  let topic: Topic = pick(rng, TOPICS);
  return (): Turn => {
    if (rng() < 0.08) topic = pick(rng, TOPICS);
    const query = pick(rng, QUESTION_TEMPLATES)(topic, rng);
    const target = int(rng, minW, maxW);
    const parts: string[] = [];
    if (rng() < 0.6) parts.push(pick(rng, OPENERS));
    let words = parts.length ? wordCount(parts[0]) : 0;
    while (words < target) {
      const s = pick(rng, SENTENCE_TEMPLATES)(topic, rng);
      parts.push(s);
      words += wordCount(s);
    }
    // Occasional paragraph breaks and a code-ish line, as assistants produce; the
    // total stays within [minW, maxW] words.
    const code = rng() < 0.1 ? `\`${pick(rng, topic.idents)}\`` : "";
    const codeWords = code ? wordCount(code) : 0;
    let answer = clipWords(parts.join(" "), Math.max(minW, target - codeWords));
    if (rng() < 0.25) answer = answer.replace(/\. /, ".\n\n");
    if (code && wordCount(answer) + codeWords <= maxW) answer += `\n\n${code}`;
    return { query, answer };
  };
}

export { wordCount };
