import { lexicalTokens } from "../embeddings/lexical-embedder";

// The words the rules compare (docs/incidents.md, "Words"). Pure and lexical, like the local
// embedder: a paraphrase that shares no word with a memory ("I'm off meat" for "Is
// vegetarian") is invisible to them, except through the few topic groups below.

// Function words and words every message about oneself carries: sharing them says nothing.
const STOP = new Set(
  (
    "a an and are as at be been being but by can could did do does doing for from had has have having he her here hers him his how i if in into is it its " +
    "just me mine my myself no nor not of off on once only or our ours out over own please same she should so some such than that the their theirs them " +
    "then there these they this those through to too under until up very was we were what when where which while who whom why will with would you your yours " +
    "yourself also again about any all am let lets get got tell know remember thing things something anything one ever still really much many more most " +
    "said say says mentioned mention told earlier before ago like likes liked want wants need needs usually always never now today thanks thank okay ok yes " +
    "yeah sure hi hello hey good great well make made go going way time use used recommend suggest best favorite favourite prefer prefers preferred " +
    // Verbs and adjectives of requests that name no fact.
    "keep keeps take takes give gives put come look try help write short fun fact quick new long simple simply explain difference"
  ).split(" "),
);

/** A crude English stem: enough for "seats"/"seat", "allergies"/"allergy", "booked"/"book". */
export function stem(w: string): string {
  if (w.length > 4 && w.endsWith("ies")) return `${w.slice(0, -3)}y`;
  if (w.length > 5 && w.endsWith("ing")) return w.slice(0, -3);
  if (w.length > 4 && w.endsWith("ed")) return w.slice(0, -2);
  if (w.length > 3 && w.endsWith("s") && !w.endsWith("ss") && !w.endsWith("us")) return w.slice(0, -1);
  return w;
}

// The rules ask for the same texts' words many times (a query per rule, a memory per turn): kept
// per text, a bounded cache (cleared when full), shared and so read-only.
const WORDS = new Map<string, ReadonlySet<string>>();

/** The content words of a text, stemmed (stop words and one-letter words left out). */
export function contentWords(text: string): ReadonlySet<string> {
  let w = WORDS.get(text);
  if (!w) {
    if (WORDS.size >= 50_000) WORDS.clear();
    WORDS.set(text, (w = wordsOf(text)));
  }
  return w;
}

function wordsOf(text: string): Set<string> {
  const out = new Set<string>();
  for (const t of lexicalTokens(text)) {
    if (t.length < 2 || STOP.has(t)) continue;
    const s = stem(t);
    if (!STOP.has(s)) out.add(s);
  }
  return out;
}

export function overlap(a: ReadonlySet<string>, b: ReadonlySet<string>): string[] {
  const out: string[] = [];
  for (const w of a) if (b.has(w)) out.push(w);
  return out;
}

// Topic groups: words that speak of the same fact about a person, so that a correction
// ("no, I moved to Porto") reaches the memory it corrects ("Lives in Lisbon").
const TOPICS: Record<string, string[]> = {
  home: ["live", "liv", "lives", "moved", "move", "relocat", "city", "town", "based", "home", "apartment", "flat", "address", "neighborhood"],
  diet: ["vegetarian", "vegan", "pescatarian", "meat", "eat", "diet", "allergic", "allergy", "gluten", "dairy", "lactose", "kosher", "halal", "food", "steak", "beef", "pork", "chicken", "fish", "seafood"],
  work: ["work", "job", "company", "employer", "hired", "quit", "role", "position", "career", "office", "boss"],
  family: ["married", "wife", "husband", "partner", "girlfriend", "boyfriend", "divorced", "single", "kid", "child", "children", "daughter", "son", "baby"],
  pet: ["dog", "cat", "pet", "puppy", "kitten"],
  contact: ["phone", "email", "number"],
  name: ["name", "call", "called"],
};
const TOPIC_OF = new Map<string, string>();
for (const [topic, words] of Object.entries(TOPICS)) for (const w of words) TOPIC_OF.set(stem(w), topic);

/** The topics a text's words belong to (its raw tokens too: "lives" is a stop-free topic word). */
export function topicsOf(text: string): Set<string> {
  const out = new Set<string>();
  for (const t of lexicalTokens(text)) {
    const topic = TOPIC_OF.get(stem(t)) ?? TOPIC_OF.get(t);
    if (topic) out.add(topic);
  }
  return out;
}

/** A question or a request for information (not a statement of fact). */
export function isQuestion(text: string): boolean {
  const t = text.trim().toLowerCase();
  if (t.includes("?")) return true;
  return /^(what|which|where|when|who|whom|whose|why|how|do|does|did|can|could|would|will|should|is|are|am|have|has|remind|tell me|recommend|suggest|find|book|pick|choose|plan|give me|any ideas|help|show me|get me|write|draft|order|make me|send)\b/.test(t);
}

/** First match of any pattern, as the text said it. */
function firstMatch(text: string, patterns: RegExp[]): string | null {
  for (const p of patterns) {
    const m = p.exec(text);
    if (m) return m[0];
  }
  return null;
}

// The answer says the agent does not have or know what was asked.
const ABSENCE = [
  /\bi (?:do not|don't|dont) (?:have|hold|keep|see) (?:any |that |this |your |the )?(?:information|info|details?|record|note|data|memory|preference|context)\b[^.?!]*/i,
  /\bi (?:do not|don't|dont|cannot|can't|can not) (?:remember|recall|know)\b[^.?!]*/i,
  /\bi have no (?:information|info|record|memory|details?|way of knowing|idea)\b[^.?!]*/i,
  /\bi(?:'m| am) not sure (?:what|which|where|whether|if) your\b[^.?!]*/i,
  /\byou (?:haven't|have not|never|didn't|did not) (?:told|tell|mentioned|mention|shared|share|said|say)\b[^.?!]*/i,
  /\b(?:no|not) (?:stored|saved) (?:information|preference|memory|record)\b[^.?!]*/i,
  /\bcould you (?:remind|tell) me (?:what|which|where|of|your)\b[^.?!]*/i,
  /\bi don't have access to (?:your|that|personal)\b[^.?!]*/i,
];
export const absencePhrase = (answer: string): string | null => firstMatch(answer, ABSENCE);

// The user corrects what the agent used ("no, I moved to Porto", "actually I'm vegetarian now").
const CORRECTION = [
  /^\s*(?:no|nope|nah)\b[,.!]?/i,
  /\bactually\b/i,
  /\bnot anymore\b|\bno longer\b|\bany ?more\b/i,
  // "I changed my mind" changes a plan, not a fact.
  /\bi(?:'ve| have)? (?:moved|switched|changed(?! my mind)|quit|left|stopped|became)\b/i,
  /\bthat(?:'s| is) (?:wrong|outdated|old|not (?:right|true|correct))\b/i,
  /\b(?:these days|nowadays|since last)\b/i,
  /\bi(?:'m| am) now\b/i,
];
export const correctionPhrase = (query: string): string | null => firstMatch(query, CORRECTION);

// The user refers back to an earlier turn of the thread.
const BACK_REFERENCE = [
  /\b(?:as|like) i (?:said|mentioned|told you|wrote|explained)\b/i,
  /\b(?:that|which|the one|what|where|who) i (?:mentioned|said|told you about|talked about|described|asked about|brought up)\b/i,
  /\bi (?:mentioned|told you|said) (?:earlier|before|above|at the start|in the beginning)\b/i,
  /\b(?:earlier|before),? (?:i|we) (?:said|mentioned|talked|discussed)\b/i,
  /\b(?:we|you and i) (?:talked|discussed|spoke) about\b/i,
  /\bremember (?:the|what|when|that|which)\b/i,
  /\b(?:the|that|this|those) (?:[\p{L}\p{N}'-]+ ){1,3}i (?:mentioned|told you about|talked about|said)\b/iu,
  /\b(?:you|u) (?:suggested|recommended|proposed) (?:earlier|before)\b/i,
  /\bgo back to (?:the|what)\b/i,
];
// Every pattern above has one of these words: most messages have none, and one pass of this
// alternation spares them the nine patterns (the check runs on every turn detection sees).
const BACK_REFERENCE_WORD = /\b(?:said|mentioned|told|wrote|explained|described|asked|brought|talked|discussed|spoke|remember|suggested|recommended|proposed|go back)\b/i;
export const backReferencePhrase = (query: string): string | null => (BACK_REFERENCE_WORD.test(query) ? firstMatch(query, BACK_REFERENCE) : null);

/** Text normalised for "is this text inside that prompt": lower case, one space, no punctuation at the ends. */
export function normalizeForContainment(s: string): string {
  return s
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[\s\u00a0]+/g, " ")
    .replace(/^[\s"'“”‘’`]+|[\s"'“”‘’`.!?]+$/g, "")
    .trim();
}
