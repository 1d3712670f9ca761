// Deterministic, varied short memories of the four types (preference, fact, pattern,
// skill) about one user, and retrieval queries over them. No network, no data set:
// templates x word lists, with enough combinations that 100 000 memories are nearly
// all distinct, and a topic mix so the vector space has structure (neighbourhoods),
// not uniform noise.

import { makeRng, type Rng } from "./text";

export type MemoryType = "preference" | "fact" | "pattern" | "skill";
export type GeneratedMemory = { memory_type: MemoryType; content: string; importance: number };

const pick = <T>(r: Rng, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
const int = (r: Rng, lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));

const FOODS = ["dark roast coffee", "green tea", "oat milk", "spicy ramen", "sourdough bread", "sparkling water", "dark chocolate", "vegan curry", "sushi", "espresso", "matcha latte", "greek yogurt", "tacos al pastor", "mushroom risotto", "pho", "falafel wraps", "cold brew", "black beans", "kimchi", "margherita pizza"];
const TOOLS = ["TypeScript", "Python", "Rust", "Go", "PostgreSQL", "React", "Next.js", "Docker", "Kubernetes", "Terraform", "vim", "VS Code", "tmux", "pandas", "Figma", "Excel pivot tables", "Blender", "Ableton Live", "Lightroom", "Git rebase"];
const CITIES = ["Lisbon", "Berlin", "Kyoto", "Toronto", "Buenos Aires", "Nairobi", "Melbourne", "Oslo", "Seoul", "Austin", "Marseille", "Hanoi", "Reykjavík", "Porto", "Vancouver", "Cape Town", "Edinburgh", "Montreal", "Valencia", "Zürich"];
const HOBBIES = ["trail running", "bouldering", "cello", "watercolor painting", "chess", "woodworking", "birdwatching", "sourdough baking", "open-water swimming", "film photography", "gardening", "salsa dancing", "pottery", "cycling", "crossword puzzles", "astronomy", "knitting", "surfing", "board games", "calligraphy"];
const PEOPLE = ["sister", "brother", "partner", "manager", "daughter", "son", "best friend", "mother", "father", "roommate", "cofounder", "mentor"];
const NAMES = ["Ana", "Ben", "Chloé", "Dmitri", "Elif", "Farah", "Gustavo", "Hana", "Ivan", "Jun", "Kofi", "Lena", "Mateo", "Nia", "Omar", "Priya", "Quinn", "Rosa", "Sven", "Tomás", "Uma", "Viktor", "Wen", "Yara", "Zoe"];
const PETS = ["cat", "dog", "parrot", "rabbit", "tortoise", "hamster", "beagle", "border collie", "goldfish", "ferret"];
const DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday", "weekday", "weekend"];
const TIMES = ["early morning", "before breakfast", "at lunch", "mid-afternoon", "after work", "in the evening", "late at night", "before bed"];
const FORMATS = ["bullet points", "short answers", "step-by-step explanations", "code examples first", "tables", "a summary at the top", "plain language", "formal tone", "metric units", "24-hour time", "British spelling", "links to sources"];
const ACTIVITIES = ["reviews pull requests", "plans the week", "goes for a run", "reads the news", "answers email", "writes in a journal", "calls family", "does grocery shopping", "practices the cello", "cleans the apartment", "meditates", "checks the budget", "cooks a big batch of food", "studies Japanese"];
const LEVELS = ["beginner", "intermediate", "advanced", "expert", "rusty", "self-taught", "certified"];
const JOBS = ["backend engineer", "data analyst", "nurse", "high-school teacher", "product designer", "accountant", "architect", "civil engineer", "journalist", "pharmacist", "sound engineer", "research chemist"];
const COMPANIES = ["a fintech startup", "a hospital", "a logistics company", "a public library", "a game studio", "a university lab", "a bakery chain", "an energy utility", "a consulting firm", "a nonprofit"];
const ALLERGIES = ["peanuts", "shellfish", "pollen", "cats", "penicillin", "gluten", "lactose", "dust mites", "bee stings", "sesame"];
const LANGS = ["Spanish", "Japanese", "German", "Portuguese", "French", "Mandarin", "Korean", "Italian", "Arabic", "Swahili"];
const CONTEXTS = ["when traveling", "at work", "on weekends", "during busy weeks", "when it is cold", "when cooking for friends", "in meetings", "on long flights", "when tired", "for side projects"];

const TEMPLATES: Record<MemoryType, ((r: Rng) => string)[]> = {
  preference: [
    (r) => `Prefers ${pick(r, FOODS)} over ${pick(r, FOODS)} ${pick(r, CONTEXTS)}`,
    (r) => `Likes answers as ${pick(r, FORMATS)}, especially ${pick(r, CONTEXTS)}`,
    (r) => `Dislikes ${pick(r, FOODS)}; would rather have ${pick(r, FOODS)}`,
    (r) => `Wants ${pick(r, FORMATS)} and ${pick(r, FORMATS)} in technical replies`,
    (r) => `Prefers ${pick(r, TOOLS)} to ${pick(r, TOOLS)} for ${pick(r, ["new projects", "quick scripts", "data work", "production code", "prototypes"])}`,
    (r) => `Enjoys ${pick(r, HOBBIES)} ${pick(r, CONTEXTS)} more than ${pick(r, HOBBIES)}`,
    (r) => `Would like reminders ${pick(r, TIMES)} on ${pick(r, DAYS)}s, never ${pick(r, TIMES)}`,
  ],
  fact: [
    (r) => `Lives in ${pick(r, CITIES)} and moved there in ${int(r, 1998, 2025)}`,
    (r) => `Works as a ${pick(r, JOBS)} at ${pick(r, COMPANIES)} in ${pick(r, CITIES)}`,
    (r) => `Has a ${pick(r, PETS)} named ${pick(r, NAMES)}, ${int(r, 1, 15)} years old`,
    (r) => `Is allergic to ${pick(r, ALLERGIES)} and ${pick(r, ALLERGIES)}`,
    (r) => `Their ${pick(r, PEOPLE)} ${pick(r, NAMES)} lives in ${pick(r, CITIES)}`,
    (r) => `Birthday is on ${pick(r, ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"])} ${int(r, 1, 28)}`,
    (r) => `Speaks ${pick(r, LANGS)} at home and ${pick(r, LANGS)} at work`,
    (r) => `Owns a ${int(r, 1995, 2024)} ${pick(r, ["bicycle", "car", "motorbike", "van", "sailboat", "piano", "3D printer"])} bought in ${pick(r, CITIES)}`,
  ],
  pattern: [
    (r) => `Usually ${pick(r, ACTIVITIES)} on ${pick(r, DAYS)} ${pick(r, TIMES)}`,
    (r) => `Tends to ask about ${pick(r, TOOLS)} right after ${pick(r, ACTIVITIES).replace(/s\b/, "")}ing`,
    (r) => `Often drinks ${pick(r, FOODS)} ${pick(r, TIMES)} while working on ${pick(r, TOOLS)}`,
    (r) => `Every ${pick(r, DAYS)} ${pick(r, TIMES)} goes ${pick(r, HOBBIES)} with their ${pick(r, PEOPLE)}`,
    (r) => `Repeatedly postpones ${pick(r, ["taxes", "dentist appointments", "car service", "code reviews", "backups", "invoices", "gym sessions"])} until ${pick(r, DAYS)}`,
    (r) => `Asks for ${pick(r, FORMATS)} whenever the topic is ${pick(r, TOOLS)}`,
  ],
  skill: [
    (r) => `Knows ${pick(r, TOOLS)} at an ${pick(r, LEVELS)} level, ${int(r, 1, 20)} years of practice`,
    (r) => `Is learning ${pick(r, LANGS)}, currently ${pick(r, LEVELS)}`,
    (r) => `Can ${pick(r, ["debug", "deploy", "teach", "profile", "design", "automate", "review"])} ${pick(r, TOOLS)} projects without help`,
    (r) => `Plays ${pick(r, ["cello", "guitar", "piano", "drums", "violin", "saxophone"])} at ${pick(r, LEVELS)} level`,
    (r) => `Skilled at ${pick(r, HOBBIES)} and teaches it ${pick(r, DAYS)}s`,
    (r) => `Built ${pick(r, ["a compiler", "a chess engine", "a budgeting app", "a home server", "a synth plugin", "a recipe site", "a CLI tool"])} in ${pick(r, TOOLS)}`,
  ],
};

const TYPES: MemoryType[] = ["preference", "fact", "pattern", "skill"];
const TYPE_WEIGHTS = [0.3, 0.35, 0.2, 0.15];

function pickType(r: Rng): MemoryType {
  let x = r();
  for (let i = 0; i < TYPES.length; i++) {
    if ((x -= TYPE_WEIGHTS[i]) < 0) return TYPES[i];
  }
  return "fact";
}

export function makeMemoryGenerator(seed: number) {
  const r = makeRng(seed);
  return (): GeneratedMemory => {
    const memory_type = pickType(r);
    let content = pick(r, TEMPLATES[memory_type])(r);
    // An occasional detail clause: more distinct texts, realistic length spread.
    // Most memories carry some context (when, where, who): nearly all texts distinct.
    if (r() < 0.8) {
      const month = pick(r, ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]);
      content += pick(r, [
        () => ` (mentioned on ${int(r, 1, 28)} ${month} ${int(r, 2023, 2026)})`,
        () => `; confirmed by their ${pick(r, PEOPLE)} ${pick(r, NAMES)}`,
        () => ` since ${month} ${int(r, 2010, 2026)}`,
        () => `, said while talking about ${pick(r, HOBBIES)} in ${pick(r, CITIES)}`,
        () => ` (${pick(r, ["said in passing", "mentioned twice", "stated clearly", "implied"])} ${pick(r, CONTEXTS)}, ${int(r, 2, 60)} days ago)`,
      ])();
    }
    const importance = Math.round((0.1 + 0.9 * r() ** 1.5) * 100) / 100;
    return { memory_type, content, importance };
  };
}

/** Retrieval queries: half memory-shaped (same vocabulary, new combinations), half short keyword questions. */
export function makeQueryGenerator(seed: number) {
  const r = makeRng(seed);
  const mem = makeMemoryGenerator(seed ^ 0x5bd1e995);
  const short = [
    () => `what does the user like to drink ${pick(r, TIMES)}`,
    () => `where does the user live`,
    () => `${pick(r, TOOLS)} experience`,
    () => `allergies ${pick(r, ALLERGIES)}`,
    () => `pets named ${pick(r, NAMES)}`,
    () => `how should answers be formatted`,
    () => `${pick(r, HOBBIES)} on ${pick(r, DAYS)}`,
    () => `family in ${pick(r, CITIES)}`,
    () => `learning ${pick(r, LANGS)}`,
    () => `favorite food ${pick(r, FOODS)}`,
  ];
  return (): string => (r() < 0.5 ? mem().content : pick(r, short)());
}

/** A uuid (v4 layout) from the generator, so runs load identical ids. */
export function makeUuid(r: Rng): string {
  const h = Array.from({ length: 16 }, () => Math.floor(r() * 256));
  h[6] = (h[6] & 0x0f) | 0x40;
  h[8] = (h[8] & 0x3f) | 0x80;
  const x = h.map((b) => b.toString(16).padStart(2, "0")).join("");
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}

export { makeRng };
