import type { MemoryType } from "./schemas";
import { splitSentences } from "./curation-text";

// A small, honest rule-based extractor for when no chat model is configured. It reads
// the user's own statements ("I prefer ...", "my name is ...", "I work at ...") in
// English and writes subject-less memories ("Prefers dark mode", "Name is Ana").
// It does not understand meaning: questions, conditionals and requests are skipped,
// and everything it finds waits in the review queue for a person to approve.

export type RuleCandidate = {
  memory_type: MemoryType;
  content: string;
  structured_data: Record<string, unknown> | null;
  importance_score: number;
  source_message_id: string | null;
  evidence: string | null;
  rule: string;
};

type Rule = { name: string; type: MemoryType; importance: number; re: RegExp; make: (m: RegExpMatchArray) => string | null };

const STOP_FIRST = new Set(["it", "that", "this", "these", "those", "how", "what", "when", "where", "why", "you", "your", "to", "if", "them", "him", "her"]);
const CUT = /\s*(?:[,;:(]|\s[-–—]\s|\b(?:because|since|but|though|although|unless|so that|as long as)\b)/i;
const DAYS = "monday|tuesday|wednesday|thursday|friday|saturday|sunday";

function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** "my" → "their" and the like, so the memory has no first person in it. */
function depersonalize(s: string): string {
  return s
    .replace(/\bmyself\b/gi, "themselves")
    .replace(/\bmy\b/gi, "their")
    .replace(/\bmine\b/gi, "theirs")
    .replace(/\bme\b/gi, "them")
    .replace(/\bI'm\b/gi, "they're")
    .replace(/\bI am\b/gi, "they are")
    .replace(/\bI\b/g, "they");
}

/** The object of a statement: up to the first clause break, without end punctuation; null when unusable. */
export function cleanValue(raw: string, maxWords = 16): string | null {
  const cut = raw.search(CUT);
  let v = (cut >= 0 ? raw.slice(0, cut) : raw).trim();
  v = v.replace(/^["'“‘]+|["'”’.!…]+$/g, "").trim();
  if (!v) return null;
  const words = v.split(/\s+/);
  if (words.length > maxWords || v.length > 120) return null;
  if (STOP_FIRST.has(words[0].toLowerCase())) return null;
  return depersonalize(v);
}

/** Third person of an English verb: write → writes, go → goes, try → tries, have → has. */
export function thirdPerson(verb: string): string {
  const v = verb.toLowerCase();
  const irregular: Record<string, string> = { have: "has", do: "does", go: "goes", be: "is", am: "is", "can't": "can't", can: "can", will: "will" };
  if (irregular[v]) return irregular[v];
  if (/(?:s|sh|ch|x|z|o)$/.test(v)) return `${verb}es`;
  if (/[^aeiou]y$/.test(v)) return `${verb.slice(0, -1)}ies`;
  return `${verb}s`;
}

function thirdPersonPhrase(phrase: string): string {
  const [first, ...rest] = phrase.split(/\s+/);
  return [thirdPerson(first), ...rest].join(" ");
}

const withValue = (prefix: string, group = 1, maxWords?: number) => (m: RegExpMatchArray) => {
  const v = cleanValue(m[group], maxWords);
  return v ? `${prefix} ${v}` : null;
};

const RULES: Rule[] = [
  { name: "name", type: "fact", importance: 0.8, re: /\bmy name is ([\p{L}'-]+(?:\s+[\p{L}'-]+){0,3})/iu, make: withValue("Name is", 1, 4) },
  { name: "call me", type: "preference", importance: 0.7, re: /\bcall me ([\p{L}'-]+(?:\s+[\p{L}'-]+){0,2})/iu, make: withValue("Prefers to be called", 1, 3) },
  {
    name: "my X is",
    type: "fact",
    importance: 0.7,
    re: /\bmy (e-?mail(?: address)?|time ?zone|birthday|company|employer|role|job title|job|title|team|pronouns|phone number|website|github(?: username)?|native language|first language|favou?rite [\p{L}]+(?: [\p{L}]+)?) (?:is|are) (.+)/iu,
    make: (m) => {
      const v = cleanValue(m[2]);
      return v ? `${capitalize(m[1].toLowerCase().replace(/^favou?rite/, "favorite"))} is ${v}` : null;
    },
  },
  {
    name: "does not eat",
    type: "preference",
    importance: 0.7,
    re: /\bI (?:don't|do not|dont|never|can't|cannot) (eat|drink) (.+)/i,
    make: (m) => {
      const v = cleanValue(m[2]);
      return v ? `Does not ${m[1].toLowerCase()} ${v}` : null;
    },
  },
  { name: "allergy", type: "fact", importance: 0.9, re: /\bI(?:'m| am|m) allergic to (.+)/i, make: withValue("Is allergic to") },
  {
    name: "diet",
    type: "preference",
    importance: 0.7,
    re: /\bI(?:'m| am|m) (?:a |an )?(vegetarian|vegan|pescatarian|lactose intolerant|gluten intolerant)\b/i,
    make: (m) => `Is ${m[1].toLowerCase()}`,
  },
  { name: "prefer", type: "preference", importance: 0.6, re: /\bI(?:'d| would)? (?:really |strongly |generally |usually |always )?prefer (.+)/i, make: withValue("Prefers") },
  {
    name: "dislike",
    type: "preference",
    importance: 0.6,
    re: /\bI (?:(?:don't|do not|dont) (?:really )?(?:like|enjoy|love)|dislike|hate|can't stand|cannot stand) (.+)/i,
    make: withValue("Dislikes"),
  },
  { name: "like", type: "preference", importance: 0.5, re: /\bI (?:really )?(?:like|love|enjoy) (.+)/i, make: withValue("Likes") },
  { name: "work at", type: "fact", importance: 0.7, re: /\bI (?:currently )?work (?:at|for) (.+)/i, make: withValue("Works at") },
  { name: "work as", type: "fact", importance: 0.7, re: /\bI (?:currently )?work as (.+)/i, make: withValue("Works as") },
  {
    name: "occupation",
    type: "fact",
    importance: 0.7,
    re: /\bI(?:'m| am|m) (an? (?:(?:senior|junior|lead|staff|principal|freelance|software|data|backend|frontend|front-end|back-end|full-stack|web|mobile|ml|product|ux|ui|graphic|research) )*(?:developer|engineer|designer|manager|teacher|student|doctor|nurse|researcher|scientist|writer|lawyer|analyst|consultant|architect|founder|programmer))\b/i,
    make: (m) => `Is ${m[1].toLowerCase()}`,
  },
  { name: "live in", type: "fact", importance: 0.7, re: /\bI (?:currently )?live in (.+)/i, make: withValue("Lives in") },
  { name: "based in", type: "fact", importance: 0.7, re: /\bI(?:'m| am|m) (?:based|located) in (.+)/i, make: withValue("Is based in") },
  { name: "from", type: "fact", importance: 0.6, re: /\bI(?:'m| am|m) from (.+)/i, make: withValue("Is from") },
  { name: "speak", type: "fact", importance: 0.6, re: /\bI speak (.+)/i, make: withValue("Speaks") },
  {
    name: "use",
    type: "preference",
    importance: 0.6,
    re: /\bI (always |usually |mostly |mainly |normally |typically )?use (.+)/i,
    make: (m) => {
      const v = cleanValue(m[2]);
      if (!v) return null;
      return m[1] ? `${capitalize(m[1].trim().toLowerCase())} uses ${v}` : `Uses ${v}`;
    },
  },
  {
    name: "every",
    type: "pattern",
    importance: 0.5,
    re: new RegExp(`\\b(every (?:day|morning|afternoon|evening|night|week|weekday|weekend|month|year|${DAYS})(?: (?:morning|afternoon|evening|night))?),? I (.+)`, "i"),
    make: (m) => {
      const v = cleanValue(m[2]);
      if (!v) return null;
      const when = m[1].toLowerCase().replace(new RegExp(`\\b(${DAYS})\\b`), (d) => capitalize(d));
      return `${capitalize(thirdPersonPhrase(v))} ${when}`;
    },
  },
  {
    name: "habit",
    type: "pattern",
    importance: 0.5,
    re: /\bI (always|usually|often|never|normally|typically|regularly|tend to) (.+)/i,
    make: (m) => {
      const v = cleanValue(m[2]);
      if (!v) return null;
      const adverb = m[1].toLowerCase();
      return adverb === "tend to" ? `Tends to ${v}` : `${capitalize(adverb)} ${thirdPersonPhrase(v)}`;
    },
  },
];

const SKIP_CLAUSE = /^(?:if|when|what if|maybe|perhaps|suppose|imagine)\b|\b(?:can|could|would|will) you\b|\bpretend\b|\bsay that\b/i;
const CLAUSE_SPLIT = /\s*;\s*|,?\s+(?:and|but|so|also|plus)\s+(?=(?:i|i'm|i'd|im|my)\b)|,\s*(?=(?:i|i'm|i'd|im|my)\b)/i;

/** Candidates from one user message. */
export function extractByRules(text: string): RuleCandidate[] {
  const out: RuleCandidate[] = [];
  const normalized = text.replace(/[’‘]/g, "'");
  for (const sentence of splitSentences(normalized)) {
    if (/\?\s*$/.test(sentence)) continue;
    for (const clause of sentence.split(CLAUSE_SPLIT)) {
      const c = clause.trim();
      if (!c || SKIP_CLAUSE.test(c)) continue;
      for (const rule of RULES) {
        const m = c.match(rule.re);
        if (!m) continue;
        const content = rule.make(m);
        if (!content) continue;
        out.push({
          memory_type: rule.type,
          content: capitalize(content),
          structured_data: null,
          importance_score: rule.importance,
          source_message_id: null,
          evidence: sentence.slice(0, 500),
          rule: rule.name,
        });
        break;
      }
    }
  }
  return out;
}
