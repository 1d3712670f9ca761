import { UUID_NIL } from "../threads/uuid-nil";
import { demoEpoch } from "./demo-clock";
import type { z } from "zod";
import type { ZTurnInput } from "../messages/schemas";
import type { ZConversationCreate } from "../conversations/schemas";

type TurnInput = z.input<typeof ZTurnInput>;
type ConversationCreate = z.input<typeof ZConversationCreate>;

// Demo conversations that show every case the tool handles: regenerated branches,
// a 600+ turn thread, legacy rows with null and UUID_NIL parents, image turns.
// Deterministic (fixed ids, seeded pseudo-random text) so screenshots and tests are stable.

export const DEMO_IDS = {
  branching: "0f5a7c1e-1d2b-4c3d-8e9f-000000000001",
  long: "0f5a7c1e-1d2b-4c3d-8e9f-000000000002",
  legacy: "0f5a7c1e-1d2b-4c3d-8e9f-000000000003",
  images: "0f5a7c1e-1d2b-4c3d-8e9f-000000000004",
  support: "0f5a7c1e-1d2b-4c3d-8e9f-000000000005",
  archived: "0f5a7c1e-1d2b-4c3d-8e9f-000000000006",
  incidents: "0f5a7c1e-1d2b-4c3d-8e9f-000000000008",
} as const;

export type DemoConversation = { conversation: ConversationCreate; turns: TurnInput[] };

function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** A deterministic uuid v4-shaped id from a label, so demo rows keep their ids. */
export function demoId(conv: number, n: number): string {
  const hex = (conv * 1_000_003 + n).toString(16).padStart(12, "0").slice(-12);
  return `${(0xa0000000 + conv).toString(16)}-0000-4000-8000-${hex}`;
}

// Set by demoConversations() for the build in progress (see demo-clock.ts).
let T0 = demoEpoch();
const at = (minutes: number) => new Date(T0 + minutes * 60_000).toISOString();

const TOPICS = [
  ["the Lisbon trip", "Book the Alfama guesthouse for three nights and keep one evening free for fado."],
  ["the budget", "Keep daily spending under 120 euros; trams and the 24h Viva Viagem card cover most rides."],
  ["food", "You said you avoid shellfish, so I picked grilled sardines and bacalhau à brás instead."],
  ["Sintra", "Take the 9:10 train from Rossio; Pena Palace tickets are cheaper online before 10am."],
  ["packing", "Bring layers: Lisbon evenings in October drop to 15°C and the hills are windy."],
  ["the museum list", "Gulbenkian on Wednesday (free after 2pm on Sundays), MAAT on Thursday morning."],
  ["getting around", "The 28 tram is scenic but crowded; the 12E covers the same hills with fewer queues."],
  ["the trip home", "Your TAP flight leaves at 18:40; the metro red line reaches the airport in 25 minutes."],
] as const;

const QUESTIONS = [
  "What about {t}?",
  "Can you revisit {t} with fresh eyes?",
  "Remind me what we decided on {t}.",
  "Is there a cheaper option for {t}?",
  "Summarize {t} in two sentences.",
  "I changed my mind on {t}, what would you suggest now?",
];

function lisbonTurn(r: () => number): { query: string; answer: string } {
  const [topic, fact] = TOPICS[Math.floor(r() * TOPICS.length)];
  const q = QUESTIONS[Math.floor(r() * QUESTIONS.length)].replace("{t}", topic);
  const extra = r() > 0.6 ? " I also noted it in your trip memory so I will not ask again." : "";
  const long = r() > 0.85 ? ` Details: ${fact} ${fact}` : "";
  return { query: q, answer: `${fact}${extra}${long}` };
}

function branching(): DemoConversation {
  const c = 1;
  const id = (n: number) => demoId(c, n);
  // Root chain 1-2-3; turn 3 regenerated twice (3a, 3b share parent 2);
  // the conversation continues on 3b; later turn 6 regenerated under 5.
  const turns: TurnInput[] = [
    { id: id(1), parent_message_id: null, query: "I'm planning four days in Lisbon in October. Where should I stay?", answer: "Alfama or Baixa: both walkable. Alfama is quieter at night and full of fado houses; Baixa is flatter and central.", created_at: at(0) },
    { id: id(2), parent_message_id: id(1), query: "Alfama sounds good. I don't eat shellfish, by the way.", answer: "Noted: no shellfish. In Alfama, try Taberna Sal Grosso for grilled fish and Pateo 13 for sardines.", created_at: at(2) },
    { id: id(3), parent_message_id: id(2), query: "Plan day one for me.", answer: "Morning: São Jorge Castle. Lunch: Pateo 13. Afternoon: Feira da Ladra flea market. Evening: fado at Clube de Fado.", created_at: at(4) },
    { id: id(4), parent_message_id: id(2), query: "Plan day one for me.", answer: "Start at the Miradouro de Santa Luzia, walk down to the Sé cathedral, then lunch on grilled sardines. Keep the evening free for fado.", created_at: at(5), metadata: { regenerated: true } },
    { id: id(5), parent_message_id: id(2), query: "Plan day one for me, but slower please.", answer: "A slow day: coffee at Miradouro da Graça, the castle at 10, a long lunch, a siesta, and fado at 21:00 in Alfama.", created_at: at(6), metadata: { regenerated: true } },
    { id: id(6), parent_message_id: id(5), query: "Great. And day two?", answer: "Day two is Belém: the Jerónimos Monastery early, pastéis de Belém, then MAAT along the river.", created_at: at(9) },
    { id: id(7), parent_message_id: id(6), query: "What's the budget per day?", answer: "Around 110 euros a day: 45 for food, 25 for sights, 10 for transport, the rest for fado and coffee.", created_at: at(11) },
    { id: id(8), parent_message_id: id(6), query: "What's the budget per day?", answer: "Plan on 120 euros a day to be safe; the 24h Viva Viagem card (6.80 euros) covers trams and metro.", created_at: at(12), metadata: { regenerated: true } },
    { id: id(9), parent_message_id: id(8), query: "Perfect, save that as my daily budget. I usually travel with carry-on luggage only, and I speak some Portuguese.", answer: "Saved: daily budget 120 euros, no shellfish, prefers slow mornings.", created_at: at(14) },
  ];
  return {
    conversation: { id: DEMO_IDS.branching, app_id: "travel-planner", end_user_id: "ana@example.com", name: "Lisbon in October (regenerated answers)", mode: "advanced-chat", model_config: { model: "gpt-4o", temperature: 0.7 }, status: "active" },
    turns,
  };
}

function long(): DemoConversation {
  const c = 2;
  const r = rng(42);
  const n = 640;
  const turns: TurnInput[] = [];
  for (let i = 1; i <= n; i++) {
    const t = lisbonTurn(r);
    turns.push({ id: demoId(c, i), parent_message_id: i === 1 ? null : demoId(c, i - 1), ...t, created_at: at(60 * 24 + i * 3) });
    // A few regenerations along the way: a sibling that the thread does not follow.
    if (i % 97 === 0) {
      turns.push({ id: demoId(c, 10_000 + i), parent_message_id: demoId(c, i - 1), ...lisbonTurn(r), created_at: at(60 * 24 + i * 3 + 1), metadata: { regenerated: true } });
    }
  }
  return {
    conversation: { id: DEMO_IDS.long, app_id: "travel-planner", end_user_id: "ana@example.com", name: "Trip companion: 640 turns", mode: "chat", model_config: { model: "gpt-4o-mini" }, status: "active" },
    turns,
  };
}

function legacy(): DemoConversation {
  const c = 3;
  const r = rng(7);
  const turns: TurnInput[] = [];
  // Pre-regeneration rows: the first has a null parent, the next ones UUID_NIL
  // ("the previous row"), as Dify's migration left them. Then new-style rows.
  for (let i = 1; i <= 12; i++) {
    turns.push({ id: demoId(c, i), parent_message_id: i === 1 ? null : UUID_NIL, ...lisbonTurn(r), created_at: at(60 * 48 + i * 5) });
  }
  for (let i = 13; i <= 16; i++) {
    turns.push({ id: demoId(c, i), parent_message_id: demoId(c, i - 1), ...lisbonTurn(r), created_at: at(60 * 48 + i * 5) });
  }
  // An in-flight placeholder: the newest turn has no answer yet.
  turns.push({ id: demoId(c, 17), parent_message_id: demoId(c, 16), query: "And what should I pack for Sintra?", answer: "", answer_tokens: 0, created_at: at(60 * 48 + 17 * 5) });
  return {
    conversation: { id: DEMO_IDS.legacy, app_id: "support-bot", end_user_id: "legacy-user-17", name: "Legacy import (null and UUID_NIL parents)", mode: "chat", model_config: { model: "gpt-3.5-turbo" }, status: "active" },
    turns,
  };
}

function images(): DemoConversation {
  const c = 4;
  const id = (n: number) => demoId(c, n);
  const turns: TurnInput[] = [
    { id: id(1), parent_message_id: null, query: "What is wrong with this chart?", answer: "The y-axis starts at 40, which exaggerates the difference between the two bars.", created_at: at(60 * 72), files: [{ type: "image", transfer_method: "remote_url", url: "https://example.com/uploads/q3-revenue.png", belongs_to: "user" }] },
    { id: id(2), parent_message_id: id(1), query: "Here is the fixed version and the raw data.", answer: "Better: the axis now starts at zero. The CSV matches the bars.", created_at: at(60 * 72 + 3), files: [
      { type: "image", transfer_method: "local_file", upload_file_id: "upl_7f3a91", belongs_to: "user" },
      { type: "document", transfer_method: "local_file", upload_file_id: "upl_7f3a92", belongs_to: "user" },
    ] },
    { id: id(3), parent_message_id: id(2), query: "Draw me a cleaner version.", answer: "Here it is, with direct labels instead of a legend.", created_at: at(60 * 72 + 6), files: [{ type: "image", transfer_method: "tool_file", upload_file_id: "tool_c2d4", belongs_to: "assistant" }] },
  ];
  return {
    conversation: { id: DEMO_IDS.images, app_id: "analytics-copilot", end_user_id: "li.wei@example.com", name: "Chart review with images", mode: "agent-chat", model_config: { model: "gpt-4.1" }, status: "active" },
    turns,
  };
}

function support(): DemoConversation {
  const c = 5;
  const id = (n: number) => demoId(c, n);
  const qa = [
    ["My export to CSV keeps timing out.", "Exports over 50k rows run in the background; you'll get an email with the link. Can you tell me roughly how many rows?"],
    ["About 120k rows.", "Then the background export is the way. I've queued one for your workspace; it should arrive within 10 minutes."],
    ["Got it, thanks! Can I schedule it weekly?", "Yes: Settings → Exports → Schedule. Pick Monday 07:00 and the format (CSV or Parquet)."],
    ["Parquet please. Do you remember my timezone?", "You're on Europe/Berlin, so Monday 07:00 Berlin time. Scheduled."],
    // Statements the local extraction rules recognise, so Review → Extract has something to show.
    ["I work at Nordhaus Logistics and I always open the exports in DuckDB.", "Good choice: DuckDB reads Parquet directly, no import step needed."],
  ];
  return {
    conversation: { id: DEMO_IDS.support, app_id: "support-bot", end_user_id: "max.k@example.com", name: "CSV export timeouts", mode: "chat", model_config: { model: "gpt-4o" }, status: "active" },
    turns: qa.map(([query, answer], i) => ({
      id: id(i + 1),
      parent_message_id: i === 0 ? null : id(i),
      query,
      answer,
      created_at: at(60 * 96 + i * 4),
      // The agent queued the export with a tool (kept as metadata.tool_calls).
      ...(i === 1
        ? { metadata: { tool_calls: [{ id: "call_queue_export", name: "queue_export", arguments: { rows: 120000, format: "csv" }, result: { job_id: "exp_4821", eta_minutes: 10 } }] } }
        : {}),
    })),
  };
}

function archived(): DemoConversation {
  const c = 6;
  const id = (n: number) => demoId(c, n);
  return {
    conversation: { id: DEMO_IDS.archived, app_id: "code-helper", end_user_id: "sam@example.com", name: "Old refactor session", mode: "chat", model_config: { model: "gpt-4" }, status: "archived" },
    turns: [
      { id: id(1), parent_message_id: null, query: "How do I rename a column in Postgres without downtime?", answer: "Add the new column, backfill in batches, dual-write from the app, switch reads, then drop the old column.", created_at: at(60 * 120) },
      { id: id(2), parent_message_id: id(1), query: "And with an index on it?", answer: "Create the index on the new column CONCURRENTLY before switching reads.", created_at: at(60 * 120 + 2) },
    ],
  };
}

/** The ops assistant's profile: facts are kept out of its prompt (memory_types), and GPT-4's 8k window. */
export const INCIDENTS_APP = "ops-assistant";
export const INCIDENTS_PROFILE = {
  model: "gpt-4",
  strategy: { type: "message_window", max_attached_message_count: 4 },
  memory: { enabled: true, k: 5, format: "user_memory", memory_types: ["preference", "pattern", "skill"] },
} as const;

/**
 * A day with the ops assistant whose turns the incident rules flag, one of each kind (the
 * inbox's demo): a question about a fact the profile keeps out of the prompt, a fact restated,
 * a preference corrected, a reference to a turn the 4-message window dropped, and a pasted log
 * over GPT-4's window. Yesterday, so that the memories (learned days to months ago) came first.
 */
function incidents(): DemoConversation {
  const c = 8;
  const id = (n: number) => demoId(c, n);
  const day = T0 + 58 * 86_400_000;
  const when = (minutes: number) => new Date(day - (day % 60_000) + minutes * 60_000).toISOString();
  const log = Array.from({ length: 600 }, (_, i) => `worker ${1 + (i % 4)} batch ${1001 + i}: wrote ${4001 + i} rows in ${300 + ((i * 7) % 600)} ms`).join("\n");
  const qa: [string, string][] = [
    ["What timezone am I in again? I need it for the report schedule.", "I don't have that information. Could you tell me your timezone?"],
    ["For the record, our workspace exports are about 120 thousand rows.", "Thanks, that size is fine for a background export."],
    ["Actually, we switched to CSV last week, the finance team needs it.", "Understood, the finance team gets CSV from now on."],
    ["Our warehouse in Hamburg ships the big orders on Thursdays.", "Noted, Thursdays are shipping days there."],
    ["What is the quickest way to compress a CSV?", "Gzip it: most tools read .csv.gz directly."],
    ["Draft a two-line status note for the team.", "Exports run nightly and arrive by 07:30. Ping the data channel if one is late."],
    ["Like I mentioned, the Hamburg warehouse needs the export before Thursday: can the schedule move?", "I don't have the details of that site. Which one do you mean?"],
    [`Here is the full log of last night's run, please find the error:\n${log}`, "The log is too long for me to read in full; the last lines show no error."],
  ];
  return {
    conversation: { id: DEMO_IDS.incidents, app_id: INCIDENTS_APP, end_user_id: "max.k@example.com", name: "Ops assistant: memory incidents", mode: "chat", model_config: { model: "gpt-4" }, status: "active" },
    turns: qa.map(([query, answer], i) => ({ id: id(i + 1), parent_message_id: i === 0 ? null : id(i), query, answer, created_at: when(i * 3) })),
  };
}

/** The demo's conversations, dated relative to `now` (the seed's moment). */
export function demoConversations(now = Date.now()): DemoConversation[] {
  T0 = demoEpoch(now);
  return [branching(), long(), legacy(), images(), support(), archived(), incidents()];
}
