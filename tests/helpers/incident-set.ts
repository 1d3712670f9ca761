import { randomUUID } from "node:crypto";
import type { ChatMessage } from "@/lib/capture/genai-span";
import { promptChain, storePromptNodes } from "@/lib/capture/prompt-store";
import type { ProjectSql } from "@/lib/db/project-sql";
import type { IncidentKind } from "@/lib/incidents/schemas";
import { insertTurns } from "@/lib/messages/insert-turns";
import { ZTurnInput } from "@/lib/messages/schemas";
import { contentKey } from "@/lib/memories/normalize-content";
import { ZProfileSettings } from "@/lib/profiles/schemas";

// The labelled set of issue 38: realistic conversations with every incident kind, and the
// look-alike clean turns the issue names (the memory was used; created after the turn;
// another user's; archived; restated while in the prompt), plus others a lexical rule could
// trip on (a correction about something else, a reference the window kept, a prompt just
// under the window). Each scenario says which incidents its turns must raise; every other
// turn must raise none. Used by tests/unit/incident-rules.test.ts, tests/api/incidents.test.ts
// and npm run bench:incidents (which loads it many times over with fresh ids).
//
// Times are minutes from the conversation's first turn (turn i is at minute 2i); memories are
// made a day before unless `at` says otherwise.

export type SetMemory = {
  key: string;
  content: string;
  type?: "fact" | "preference" | "pattern" | "skill";
  at?: number;
  /** Archived at this minute (before the turns: an archived memory cannot be missed). */
  archivedAt?: number;
  /** Another end user's memory (same content, another user): never this conversation's. */
  otherUser?: boolean;
  /** Extracted from this turn (source_message_id), made just after it. */
  fromTurn?: string;
  importance?: number;
};

export type SetTurn = {
  key: string;
  q: string;
  a: string;
  /** Captured over OTLP: the memories the agent put in its prompt, the history turns it sent (all by default), the tokens it reported. */
  captured?: { memories: string[]; history?: number; tokens?: number; model?: string };
};

export type Expectation = { kind: IncidentKind; turn: string; subject?: string };

export type Scenario = {
  name: string;
  app?: string;
  /** The app's profile (settings as POST /profiles/{app}/versions takes them). */
  profile?: Record<string, unknown>;
  memories: SetMemory[];
  turns: SetTurn[];
  expect: Expectation[];
  /** What the scenario shows (the clean turns' look-alike). */
  note?: string;
};

const cap = (memories: string[] = [], extra: Partial<NonNullable<SetTurn["captured"]>> = {}) => ({ memories, ...extra });

export const INCIDENT_SET: Scenario[] = [
  // ---------- missed_memory ----------
  {
    name: "peanut allergy missed (captured)",
    memories: [{ key: "peanut", content: "Allergic to peanuts" }, { key: "city", content: "Lives in Lisbon" }],
    turns: [
      { key: "t1", q: "I'm making dinner for friends tonight.", a: "Fun! What are you thinking of cooking?", captured: cap(["city"]) },
      { key: "t2", q: "Are there peanuts in pad thai? Can I order it?", a: "Pad thai is often topped with crushed peanuts. It's a great choice, enjoy!", captured: cap(["city"]) },
    ],
    expect: [{ kind: "missed_memory", turn: "t2", subject: "peanut" }],
  },
  {
    name: "aisle seat missed on a booking (captured)",
    memories: [{ key: "aisle", content: "Prefers aisle seats on flights", type: "preference" }],
    turns: [
      { key: "t1", q: "I need to fly to Porto on Friday morning.", a: "There is a TAP flight at 8:10.", captured: cap([]) },
      { key: "t2", q: "Book me a seat on that flight please.", a: "Done: I booked window seat 14A for you.", captured: cap([]) },
    ],
    expect: [{ kind: "missed_memory", turn: "t2", subject: "aisle" }],
  },
  {
    name: "daughter's name: the agent says it does not know (captured, high)",
    memories: [{ key: "lina", content: "Daughter's name is Lina" }, { key: "job", content: "Works as a night nurse" }],
    turns: [{ key: "t1", q: "What is my daughter's name again?", a: "I'm sorry, I don't have that information stored about your family.", captured: cap(["job"]) }],
    expect: [{ kind: "missed_memory", turn: "t1", subject: "lina" }],
  },
  {
    name: "dentist appointment: profile retrieves preferences only (replayed, high)",
    app: "planner",
    profile: { memory: { k: 5, memory_types: ["preference"] } },
    memories: [
      { key: "dentist", content: "Has a dentist appointment on Tuesday at 9", type: "fact" },
      { key: "tea", content: "Prefers green tea in the morning", type: "preference" },
    ],
    turns: [{ key: "t1", q: "When is my dentist appointment?", a: "I don't remember you mentioning a dentist appointment. Could you check your calendar?" }],
    expect: [{ kind: "missed_memory", turn: "t1", subject: "dentist" }],
  },
  {
    name: "hospital shifts: memory off in the profile (replayed)",
    app: "coach",
    profile: { memory: { enabled: false } },
    memories: [{ key: "shifts", content: "Works night shifts at the hospital" }],
    turns: [{ key: "t1", q: "When should I schedule gym sessions around my hospital shifts?", a: "Most people like to train early in the morning before work." }],
    expect: [{ kind: "missed_memory", turn: "t1", subject: "shifts" }],
  },
  {
    name: "wife's name missed while planning a dinner (captured)",
    memories: [{ key: "wife", content: "Wife is called Marta" }],
    turns: [{ key: "t1", q: "Help me plan a surprise dinner for my wife.", a: "Lovely idea! What does your partner enjoy eating?", captured: cap([]) }],
    expect: [{ kind: "missed_memory", turn: "t1", subject: "wife" }],
  },
  {
    name: "gluten intolerance missed at a bakery (replayed, k = 1)",
    app: "foodie",
    profile: { memory: { k: 1, weights: { similarity: 0.1, recency: 0, importance: 0.9 } } },
    memories: [
      { key: "gluten", content: "Intolerant to gluten, avoids bread and pasta", importance: 0.3 },
      { key: "budget", content: "Monthly food budget is 300 euros", importance: 0.9 },
    ],
    turns: [{ key: "t1", q: "Can I have the pasta special tonight, or is the bread basket better?", a: "The pasta special is delicious tonight, go for it!" }],
    expect: [{ kind: "missed_memory", turn: "t1", subject: "gluten" }],
  },
  // clean look-alikes of missed_memory
  {
    name: "aisle seat used (captured): clean",
    note: "the memory was in the prompt",
    memories: [{ key: "aisle", content: "Prefers aisle seats on flights", type: "preference" }],
    turns: [{ key: "t1", q: "Book me a seat on the flight to Rome.", a: "Booked aisle seat 22C on the 10:05 to Rome.", captured: cap(["aisle"]) }],
    expect: [],
  },
  {
    name: "shellfish allergy learnt after the turn: clean",
    note: "the memory was created after the turn",
    memories: [{ key: "shell", content: "Allergic to shellfish", at: 30 }],
    turns: [{ key: "t1", q: "Can I eat the shellfish paella at this place?", a: "The paella has prawns and mussels.", captured: cap([]) }],
    expect: [],
  },
  {
    name: "another user's allergy: clean",
    note: "the memory belongs to another end user",
    memories: [{ key: "other", content: "Allergic to peanuts", otherUser: true }],
    turns: [{ key: "t1", q: "Are there peanuts in this satay? Can I eat it?", a: "Satay sauce is made with peanuts.", captured: cap([]) }],
    expect: [],
  },
  {
    name: "archived home city: clean",
    note: "the memory was archived before the turn",
    memories: [{ key: "lisbon", content: "Lives in Lisbon", archivedAt: -60 }],
    turns: [{ key: "t1", q: "Recommend a restaurant near where I live in Lisbon.", a: "Try Taberna da Rua das Flores.", captured: cap([]) }],
    expect: [],
  },
  {
    name: "the answer carries the memory: clean",
    note: "the agent had the fact another way (the answer says it)",
    memories: [{ key: "vegan", content: "Follows a vegan diet" }],
    turns: [{ key: "t1", q: "Suggest a dinner for my vegan diet tonight.", a: "Since you follow a vegan diet: chickpea curry with rice.", captured: cap([]) }],
    expect: [],
  },
  {
    name: "a question about the city, not about the user: clean",
    note: "one shared word and no first person",
    memories: [{ key: "lisbon", content: "Lives in Lisbon" }],
    turns: [{ key: "t1", q: "What's the weather like in Lisbon this week?", a: "Sunny, 24 degrees.", captured: cap([]) }],
    expect: [],
  },
  {
    name: "replayed turn whose memory ranks first: clean",
    note: "the memory was in the replayed prompt (rank 1, k 5)",
    app: "travel",
    profile: { memory: { k: 5 } },
    memories: [{ key: "aisle", content: "Prefers aisle seats on flights", type: "preference" }, { key: "tea", content: "Drinks green tea" }],
    turns: [{ key: "t1", q: "Book me a seat on the flight to Madrid.", a: "Booked seat 18C on the aisle." }],
    expect: [],
  },
  // ---------- restated_memory ----------
  {
    name: "peanut allergy restated (captured)",
    memories: [{ key: "peanut", content: "Allergic to peanuts" }],
    turns: [
      { key: "t1", q: "Can you suggest a quick snack?", a: "How about a peanut butter toast?", captured: cap([]) },
      { key: "t2", q: "Just so you know, I'm allergic to peanuts.", a: "Thanks for telling me! Apple slices then.", captured: cap([]) },
    ],
    expect: [{ kind: "restated_memory", turn: "t2", subject: "peanut" }],
  },
  {
    name: "aisle seats restated (captured)",
    memories: [{ key: "aisle", content: "Prefers aisle seats on flights", type: "preference" }],
    turns: [{ key: "t1", q: "Again: I always prefer aisle seats on flights.", a: "Noted, aisle it is.", captured: cap([]) }],
    expect: [{ kind: "restated_memory", turn: "t1", subject: "aisle" }],
  },
  {
    name: "vegetarian for ten years restated (replayed, memory off)",
    app: "chef",
    profile: { memory: { enabled: false } },
    memories: [{ key: "veg", content: "Vegetarian for ten years" }],
    turns: [{ key: "t1", q: "I'm vegetarian, I have been for ten years.", a: "Great, I'll keep recipes meat-free." }],
    expect: [{ kind: "restated_memory", turn: "t1", subject: "veg" }],
  },
  {
    name: "night nurse restated (captured)",
    memories: [{ key: "nurse", content: "Works as a night nurse" }],
    turns: [{ key: "t1", q: "I work as a night nurse, so mornings are my sleep time.", a: "Understood, I'll plan around that.", captured: cap([]) }],
    expect: [{ kind: "restated_memory", turn: "t1", subject: "nurse" }],
  },
  {
    name: "cats restated (captured)",
    memories: [{ key: "cats", content: "Has two cats, Miso and Tofu" }],
    turns: [{ key: "t1", q: "My cats Miso and Tofu need a sitter next week.", a: "I can look for a pet sitter near you.", captured: cap([]) }],
    expect: [{ kind: "restated_memory", turn: "t1", subject: "cats" }],
  },
  // clean look-alikes of restated_memory
  {
    name: "restated while in the prompt: clean",
    note: "the memory was in the prompt when the user restated it",
    memories: [{ key: "peanut", content: "Allergic to peanuts" }],
    turns: [{ key: "t1", q: "Remember, I'm allergic to peanuts.", a: "Yes, I have that noted.", captured: cap(["peanut"]) }],
    expect: [],
  },
  {
    name: "first time the user says it (the memory comes from this turn): clean",
    note: "the memory was created from this very turn",
    memories: [{ key: "marathon", content: "Training for the Berlin marathon", fromTurn: "t1" }],
    turns: [{ key: "t1", q: "I'm training for the Berlin marathon this autumn.", a: "Exciting! Let's build a plan.", captured: cap([]) }],
    expect: [],
  },
  {
    name: "restating another user's fact: clean",
    note: "another user's memory",
    memories: [{ key: "nurse", content: "Works as a night nurse", otherUser: true }],
    turns: [{ key: "t1", q: "I work as a night nurse, weekends included.", a: "That's demanding.", captured: cap([]) }],
    expect: [],
  },
  {
    name: "restating an archived fact: clean",
    note: "the memory was archived",
    memories: [{ key: "cats", content: "Has two cats, Miso and Tofu", archivedAt: -120 }],
    turns: [{ key: "t1", q: "My cats Miso and Tofu are doing great.", a: "Glad to hear!", captured: cap([]) }],
    expect: [],
  },
  // ---------- stale_memory ----------
  {
    name: "moved to Porto (captured)",
    memories: [{ key: "lisbon", content: "Lives in Lisbon" }],
    turns: [
      { key: "t1", q: "Find me a coffee shop near home.", a: "Try Copenhagen Coffee Lab in Lisbon.", captured: cap(["lisbon"]) },
      { key: "t2", q: "No, I moved to Porto last month.", a: "Sorry! In Porto, try Combi Coffee.", captured: cap(["lisbon"]) },
    ],
    expect: [{ kind: "stale_memory", turn: "t1", subject: "lisbon" }],
  },
  {
    name: "vegetarian now (replayed)",
    app: "kitchen",
    profile: { memory: { k: 5 } },
    memories: [{ key: "steak", content: "Enjoys steak dinners" }],
    turns: [
      { key: "t1", q: "Suggest a steak recipe for dinner tonight.", a: "Try a ribeye with garlic butter." },
      { key: "t2", q: "Actually I'm vegetarian now.", a: "Got it, how about a mushroom risotto?" },
    ],
    expect: [{ kind: "stale_memory", turn: "t1", subject: "steak" }],
  },
  {
    name: "quit Google (captured)",
    memories: [{ key: "google", content: "Works at Google as a software engineer" }],
    turns: [
      { key: "t1", q: "Draft an out-of-office email for my job.", a: "Here is a draft signed 'Software Engineer, Google'.", captured: cap(["google"]) },
      { key: "t2", q: "Thanks. Actually I quit Google in May, I'm at Spotify now.", a: "Updated the signature to Spotify.", captured: cap([]) },
    ],
    expect: [{ kind: "stale_memory", turn: "t1", subject: "google" }],
  },
  {
    name: "corrected in the same turn (captured)",
    memories: [{ key: "berlin", content: "Lives in Berlin" }],
    turns: [{ key: "t1", q: "Actually I live in Munich now; what's a good beer garden?", a: "Augustiner-Keller is a classic.", captured: cap(["berlin"]) }],
    expect: [{ kind: "stale_memory", turn: "t1", subject: "berlin" }],
  },
  {
    name: "sold the Golf two turns later (captured)",
    memories: [{ key: "golf", content: "Drives a Volkswagen Golf" }],
    turns: [
      { key: "t1", q: "How often should I service my car?", a: "A Golf needs a service every 15 000 km.", captured: cap(["golf"]) },
      { key: "t2", q: "And what tyres should I get?", a: "For a Golf, 205/55 R16 all-season tyres.", captured: cap(["golf"]) },
      { key: "t3", q: "Not anymore, I sold the Golf and drive a Tesla now.", a: "Noted! Teslas need fewer services.", captured: cap([]) },
    ],
    expect: [{ kind: "stale_memory", turn: "t2", subject: "golf" }],
  },
  // clean look-alikes of stale_memory
  {
    name: "a correction about something else: clean",
    note: "correction phrase, but nothing the memory speaks of",
    memories: [{ key: "lisbon", content: "Lives in Lisbon" }],
    turns: [
      { key: "t1", q: "Find me a jacket for the weekend.", a: "This red jacket from the shop in Lisbon is on sale.", captured: cap(["lisbon"]) },
      { key: "t2", q: "No, I meant the blue jacket, not the red one.", a: "Here is the blue one.", captured: cap(["lisbon"]) },
    ],
    expect: [],
  },
  {
    name: "a correction of a memory the prompt did not hold: clean",
    note: "the memory was not in the prompt (the correction reaches nothing the agent used)",
    memories: [{ key: "lisbon", content: "Lives in Lisbon" }],
    turns: [
      { key: "t1", q: "Plan a weekend trip for me.", a: "How about Sintra?", captured: cap([]) },
      { key: "t2", q: "No, I moved to Porto, plan something up north.", a: "Then Peneda-Gerês!", captured: cap([]) },
    ],
    expect: [],
  },
  {
    name: "the correction comes three turns later: clean",
    note: "only the turn and the next two count",
    memories: [{ key: "golf", content: "Drives a Volkswagen Golf" }],
    turns: [
      { key: "t1", q: "How often should I service my car?", a: "A Golf needs a service every 15 000 km.", captured: cap(["golf"]) },
      { key: "t2", q: "What's a good road trip from Munich?", a: "The Romantic Road.", captured: cap([]) },
      { key: "t3", q: "How long does it take?", a: "About five days.", captured: cap([]) },
      { key: "t4", q: "Not anymore, I sold the Golf and drive a Tesla now.", a: "Noted!", captured: cap([]) },
    ],
    expect: [],
  },
  {
    name: "'no, that's all': clean",
    note: "a no that corrects nothing",
    memories: [{ key: "aisle", content: "Prefers aisle seats on flights", type: "preference" }],
    turns: [
      { key: "t1", q: "Book me a seat on the flight to Rome.", a: "Booked aisle seat 22C. Anything else?", captured: cap(["aisle"]) },
      { key: "t2", q: "No, that's all, thanks!", a: "Have a good trip!", captured: cap(["aisle"]) },
    ],
    expect: [],
  },
  // ---------- dropped_reference ----------
  {
    name: "the hotel I mentioned, dropped by a 4-message window (replayed)",
    app: "trips",
    profile: { strategy: { type: "message_window", max_attached_message_count: 4 } },
    memories: [],
    turns: [
      { key: "t1", q: "I'm staying at the Hotel Avenida in Lisbon from May 3.", a: "Great location!" },
      { key: "t2", q: "What should I see on the first day?", a: "Start with Alfama and the castle." },
      { key: "t3", q: "And for dinner?", a: "Try a tasca in Bairro Alto." },
      { key: "t4", q: "Any day trips?", a: "Sintra is a classic." },
      { key: "t5", q: "How do I get from the airport to the hotel I mentioned?", a: "Which hotel are you staying at?" },
    ],
    expect: [{ kind: "dropped_reference", turn: "t5", subject: "t1" }],
  },
  {
    name: "as I said, the budget (token buffer, replayed)",
    app: "shop",
    profile: { strategy: { type: "token_buffer", max_token_limit: 60 } },
    memories: [],
    turns: [
      { key: "t1", q: "My budget for the new laptop is 1500 euros.", a: "Noted." },
      { key: "t2", q: "I mostly edit photos and videos.", a: "Then you want a strong GPU and a good screen for your editing work." },
      { key: "t3", q: "Which screen size is best for travel?", a: "Fourteen inches balances portability and space." },
      { key: "t4", q: "As I said, which of these fits my budget?", a: "What budget do you have in mind?" },
    ],
    expect: [{ kind: "dropped_reference", turn: "t4", subject: "t1" }],
  },
  {
    name: "remember the restaurant, not in the captured prompt",
    memories: [],
    turns: [
      { key: "t1", q: "We loved the restaurant Tasca do Chico in Alfama.", a: "It's famous for fado!", captured: cap([]) },
      { key: "t2", q: "What museums are open on Monday?", a: "The Gulbenkian is closed; MAAT is open.", captured: cap([], { history: 1 }) },
      { key: "t3", q: "Remember the restaurant in Alfama? Book it for Friday.", a: "Which restaurant do you mean?", captured: cap([], { history: 1 }) },
    ],
    expect: [{ kind: "dropped_reference", turn: "t3", subject: "t1" }],
  },
  {
    name: "remember the restaurant, still in the captured prompt: clean",
    memories: [],
    turns: [
      { key: "t1", q: "We loved the restaurant Tasca do Chico in Alfama.", a: "It's famous for fado!", captured: cap([]) },
      { key: "t2", q: "Remember the restaurant in Alfama? Book it for Friday.", a: "Booked Tasca do Chico for Friday at 8 pm.", captured: cap([]) },
    ],
    expect: [],
    note: "a back reference whose turn the agent did send: the captured prompt is read for it, though the user has no memories",
  },
  {
    name: "the allergy I told you about, dropped (replayed, 2-message window)",
    app: "waiter",
    profile: { strategy: { type: "message_window", max_attached_message_count: 2 }, memory: { enabled: false } },
    memories: [],
    turns: [
      { key: "t1", q: "Our guest Paul has a sesame allergy.", a: "Noted." },
      { key: "t2", q: "We are six people on Saturday.", a: "Table for six booked." },
      { key: "t3", q: "Can the chef adapt the menu for the sesame allergy I told you about?", a: "Of course, which allergy should I tell the chef?" },
    ],
    expect: [{ kind: "dropped_reference", turn: "t3", subject: "t1" }],
  },
  {
    name: "like I mentioned, the conference dates (replayed, 4-message window)",
    app: "assistant",
    profile: { strategy: { type: "message_window", max_attached_message_count: 4 } },
    memories: [],
    turns: [
      { key: "t1", q: "The conference in Vienna runs June 10 to 12.", a: "Noted." },
      { key: "t2", q: "I need a hotel close to the venue.", a: "The Hilton am Stadtpark is close." },
      { key: "t3", q: "And a train from Munich?", a: "The Railjet takes four hours." },
      { key: "t4", q: "Is it cheaper to fly?", a: "Flights are similar in price." },
      { key: "t5", q: "Like I mentioned, the conference dates, can you block them in my calendar?", a: "Which dates are they?" },
    ],
    expect: [{ kind: "dropped_reference", turn: "t5", subject: "t1" }],
  },
  // clean look-alikes of dropped_reference
  {
    name: "the hotel I mentioned, still in the window: clean",
    note: "the referenced turn was kept",
    app: "trips-wide",
    profile: { strategy: { type: "message_window", max_attached_message_count: 20 } },
    memories: [],
    turns: [
      { key: "t1", q: "I'm staying at the Hotel Avenida in Lisbon.", a: "Great location!" },
      { key: "t2", q: "What should I see first?", a: "Alfama." },
      { key: "t3", q: "How do I get from the airport to the hotel I mentioned?", a: "Take the metro red line to Avenida." },
    ],
    expect: [],
  },
  {
    name: "as I said, with nothing dropped: clean",
    note: "the whole thread fits the window",
    memories: [],
    turns: [
      { key: "t1", q: "I need a gift for my brother.", a: "What does he like?" },
      { key: "t2", q: "As I said, a gift for my brother, he likes cycling.", a: "A bike computer!" },
    ],
    expect: [],
  },
  {
    name: "a back reference to something never said in the thread: clean",
    note: "no dropped turn shares a word with the reference",
    app: "trips-small",
    profile: { strategy: { type: "message_window", max_attached_message_count: 2 } },
    memories: [],
    turns: [
      { key: "t1", q: "What's the capital of Norway?", a: "Oslo." },
      { key: "t2", q: "And of Sweden?", a: "Stockholm." },
      { key: "t3", q: "Remember the museum pass? How much is it?", a: "The Oslo Pass costs 55 euros." },
    ],
    expect: [],
  },
  // ---------- over_context_window ----------
  {
    name: "a captured prompt over gpt-4o's window",
    memories: [],
    turns: [{ key: "t1", q: "Summarise all these logs for me.", a: "Here is a summary.", captured: cap([], { tokens: 131_000, model: "gpt-4o" }) }],
    expect: [{ kind: "over_context_window", turn: "t1" }],
  },
  {
    name: "a captured prompt just over the window less the reserved output",
    memories: [],
    turns: [{ key: "t1", q: "Review this whole repository.", a: "The repository has three modules.", captured: cap([], { tokens: 127_500, model: "gpt-4o-mini" }) }],
    expect: [{ kind: "over_context_window", turn: "t1" }],
  },
  {
    name: "a captured prompt over gpt-4's 8k window",
    memories: [],
    turns: [{ key: "t1", q: "Translate this contract.", a: "Here is the translation.", captured: cap([], { tokens: 9_000, model: "gpt-4" }) }],
    expect: [{ kind: "over_context_window", turn: "t1" }],
  },
  {
    name: "a captured prompt over o3's window",
    memories: [],
    turns: [{ key: "t1", q: "Compare these two books.", a: "Both novels explore memory.", captured: cap([], { tokens: 205_000, model: "o3" }) }],
    expect: [{ kind: "over_context_window", turn: "t1" }],
  },
  {
    name: "a replayed message longer than gpt-4's window",
    app: "small-model",
    profile: { model: "gpt-4", reserved_output_tokens: 512 },
    memories: [],
    turns: [{ key: "t1", q: `Please check this text: ${"lorem ipsum dolor sit amet ".repeat(1700)}`, a: "Checked." }],
    expect: [{ kind: "over_context_window", turn: "t1" }],
  },
  // clean look-alikes of over_context_window
  {
    name: "a captured prompt just under the limit: clean",
    note: "126 976 tokens is the limit for gpt-4o with 1 024 reserved",
    memories: [],
    turns: [{ key: "t1", q: "Summarise the attached report.", a: "Summary done.", captured: cap([], { tokens: 126_976, model: "gpt-4o" }) }],
    expect: [],
  },
  {
    name: "a large prompt on a large-window model: clean",
    memories: [],
    turns: [{ key: "t1", q: "Summarise the attached book.", a: "Summary done.", captured: cap([], { tokens: 300_000, model: "gpt-4.1" }) }],
    expect: [],
  },
  // ---------- ordinary conversations (no incident) ----------
  {
    name: "small talk with memories around: clean",
    memories: [{ key: "lisbon", content: "Lives in Lisbon" }, { key: "peanut", content: "Allergic to peanuts" }, { key: "aisle", content: "Prefers aisle seats on flights", type: "preference" }],
    turns: [
      { key: "t1", q: "Hi! How are you today?", a: "Great, thanks! How can I help?", captured: cap(["lisbon", "peanut", "aisle"]) },
      { key: "t2", q: "Tell me a joke.", a: "Why did the scarecrow win an award? He was outstanding in his field.", captured: cap(["lisbon", "peanut", "aisle"]) },
      { key: "t3", q: "What's a good book to read this summer?", a: "Try 'The Overstory'.", captured: cap(["lisbon", "peanut", "aisle"]) },
    ],
    expect: [],
  },
];

/** Every labelled turn: expectations and clean turns, for scoring. */
export function labelledTurns(set: readonly Scenario[] = INCIDENT_SET) {
  return set.flatMap((s) => s.turns.map((t) => ({ scenario: s.name, turn: t.key, expect: s.expect.filter((e) => e.turn === t.key) })));
}

export type LoadedScenario = { scenario: Scenario; conversationId: string; userId: string; turnIds: Map<string, string>; memoryIds: Map<string, string> };

const MIN = 60_000;

/**
 * Writes the scenarios into a project: conversations and turns through insertTurns (the
 * batch API's path), captured prompts as POST /traces stores them, memories with their
 * history events at the times the scenario says, and the apps' profiles. `suffix` makes
 * user and app names unique (a load many times over).
 */
export async function loadScenarios(sql: ProjectSql, scenarios: readonly Scenario[], opts: { base?: number; suffix?: string } = {}): Promise<LoadedScenario[]> {
  const base = opts.base ?? Date.parse("2026-10-01T09:00:00Z");
  const suffix = opts.suffix ?? randomUUID().slice(0, 8);
  const out: LoadedScenario[] = [];
  const profiled = new Set<string>();
  const memRows: unknown[] = [];
  const eventRows: unknown[] = [];
  const spanRows: (Record<string, unknown> & { input_messages: ChatMessage[]; output_messages: ChatMessage[] })[] = [];
  for (const [n, s] of scenarios.entries()) {
    const start = base + n * 60 * MIN;
    const userId = `user-${n}-${suffix}`;
    const app = `${s.app ?? "agent"}-${suffix}`;
    if (s.profile && !profiled.has(app)) {
      profiled.add(app);
      await sql.query(
        `INSERT INTO agent_profile_versions (project_id, app_id, version, effective_from, settings) VALUES ($1, $2, 1, $3, $4::jsonb)`,
        [sql.projectId, app, new Date(base - 10 * 24 * 60 * MIN), JSON.stringify(ZProfileSettings.parse({ strategy: { type: "message_window" }, ...s.profile }))],
      );
    }
    const conversationId = randomUUID();
    await sql.query(`INSERT INTO conversations (project_id, id, app_id, end_user_id, name, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $6)`, [
      sql.projectId,
      conversationId,
      app,
      userId,
      s.name,
      new Date(start),
    ]);
    const turnIds = new Map(s.turns.map((t) => [t.key, randomUUID()]));
    let parent: string | null = null;
    const turns = s.turns.map((t, i) => {
      const id = turnIds.get(t.key)!;
      const row = { id, parent_message_id: parent, query: t.q, answer: t.a, created_at: new Date(start + i * 2 * MIN).toISOString() };
      parent = id;
      return row;
    });
    await insertTurns(sql, conversationId, turns.map((t) => ZTurnInput.parse(t)), { minimal: true });
    const memoryIds = new Map(s.memories.map((m) => [m.key, randomUUID()]));
    for (const m of s.memories) {
      const id = memoryIds.get(m.key)!;
      const owner = m.otherUser ? `other-${n}-${suffix}` : userId;
      const created = m.fromTurn ? start + s.turns.findIndex((t) => t.key === m.fromTurn) * 2 * MIN + 5_000 : start + (m.at ?? -1440) * MIN;
      const type = m.type ?? "fact";
      const importance = m.importance ?? 0.5;
      const status = m.archivedAt !== undefined ? "archived" : "active";
      memRows.push({
        id,
        user_id: owner,
        memory_type: type,
        content: m.content,
        content_key: contentKey(m.content),
        importance_score: importance,
        status,
        created_at: new Date(created).toISOString(),
        source_message_id: m.fromTurn ? turnIds.get(m.fromTurn) : null,
      });
      const snapshot = { memory_type: type, content: m.content, structured_data: null, importance_score: importance, confidence: 0.8, version: 1 };
      eventRows.push({ id: randomUUID(), memory_id: id, user_id: owner, event_type: "create", before: null, after: { ...snapshot, status: "active" }, created_at: new Date(created).toISOString() });
      if (m.archivedAt !== undefined) {
        eventRows.push({
          id: randomUUID(),
          memory_id: id,
          user_id: owner,
          event_type: "archive",
          before: { ...snapshot, status: "active" },
          after: { ...snapshot, status: "archived", version: 2 },
          created_at: new Date(start + m.archivedAt * MIN).toISOString(),
        });
      }
    }
    for (const [i, t] of s.turns.entries()) {
      if (!t.captured) continue;
      const memText = t.captured.memories.map((k) => `- ${s.memories.find((m) => m.key === k)!.content}`).join("\n");
      const before = s.turns.slice(0, i);
      const history = t.captured.history === undefined ? before : before.slice(Math.max(0, before.length - t.captured.history));
      const input = [
        { role: "system", parts: [{ type: "text", content: `You are a helpful assistant.\n# USER MEMORY\n${memText}` }] },
        ...history.flatMap((h) => [
          { role: "user", parts: [{ type: "text", content: h.q }] },
          { role: "assistant", parts: [{ type: "text", content: h.a }] },
        ]),
        { role: "user", parts: [{ type: "text", content: t.q }] },
      ];
      const at = start + i * 2 * MIN;
      spanRows.push({
        trace_id: randomUUID().replaceAll("-", ""),
        span_id: randomUUID().replaceAll("-", "").slice(0, 16),
        conversation_id: conversationId,
        message_id: turnIds.get(t.key),
        request_model: t.captured.model ?? "gpt-4o",
        input_messages: input,
        output_messages: [{ role: "assistant", parts: [{ type: "text", content: t.a }] }],
        input_tokens: t.captured.tokens ?? 200,
        started_at: new Date(at - 1000).toISOString(),
        ended_at: new Date(at).toISOString(),
      });
    }
    out.push({ scenario: s, conversationId, userId, turnIds, memoryIds });
  }
  if (memRows.length) {
    await sql.query(
      `INSERT INTO memories (project_id, id, user_id, memory_type, content, content_key, importance_score, status, created_at, updated_at, source_message_id)
       SELECT $1, x.id, x.user_id, x.memory_type::memory_type, x.content, x.content_key, x.importance_score, x.status::memory_status, x.created_at, x.created_at, x.source_message_id
         FROM jsonb_to_recordset($2::jsonb) AS x(id uuid, user_id text, memory_type text, content text, content_key text, importance_score float8, status text, created_at timestamptz, source_message_id uuid)`,
      [sql.projectId, JSON.stringify(memRows)],
    );
    await sql.query(
      `INSERT INTO memory_events (project_id, id, memory_id, user_id, event_type, actor, before, after, created_at)
       SELECT $1, x.id, x.memory_id, x.user_id, x.event_type, 'api'::actor, x.before, x.after, x.created_at
         FROM jsonb_to_recordset($2::jsonb) AS x(id uuid, memory_id uuid, user_id text, event_type text, before jsonb, after jsonb, created_at timestamptz)`,
      [sql.projectId, JSON.stringify(eventRows)],
    );
  }
  if (spanRows.length) {
    // Prompts stored as capture stores them: messages once per conversation, a span names its last.
    const chains = spanRows.map((r) => promptChain(r.conversation_id as string, null, r.input_messages, r.output_messages));
    await storePromptNodes(sql, chains, 1 << 20);
    const rows = spanRows.map(({ input_messages: _i, output_messages: _o, ...r }, i) => ({ ...r, prompt_node: chains[i].promptNode, input_count: chains[i].inputCount, output_count: chains[i].outputCount }));
    await sql.query(
      `INSERT INTO captured_spans (project_id, conversation_id, message_id, message_form, prompt_node, input_count, output_count, input_tokens, started_at, ended_at)
       SELECT $1, x.conversation_id, x.message_id, 'attributes', x.prompt_node, x.input_count, x.output_count, x.input_tokens, x.started_at, x.ended_at
         FROM jsonb_to_recordset($2::jsonb) AS x(conversation_id uuid, message_id uuid, prompt_node uuid, input_count int, output_count int, input_tokens int, started_at timestamptz, ended_at timestamptz)`,
      [sql.projectId, JSON.stringify(rows)],
    );
    // The span's ids, operation and model are its turn's metadata.otlp, as capture writes them.
    await sql.query(
      `UPDATE messages m SET metadata = coalesce(m.metadata, '{}'::jsonb) || jsonb_build_object('otlp', jsonb_build_object('trace_id', x.trace_id, 'span_id', x.span_id, 'operation', 'chat', 'request_model', x.request_model))
         FROM jsonb_to_recordset($2::jsonb) AS x(trace_id text, span_id text, message_id uuid, request_model text)
        WHERE m.project_id = $1 AND m.id = x.message_id`,
      [sql.projectId, JSON.stringify(rows)],
    );
  }
  return out;
}

/** An incident as stored, reduced to what the labels name. */
export type Found = { kind: string; message_id: string; subject: string; conversation_id: string };

/** Scores found incidents against the labels: per kind true/false positives and misses, and incidents on clean turns. */
export function scoreFindings(loaded: readonly LoadedScenario[], found: readonly Found[]) {
  const kinds = ["missed_memory", "restated_memory", "stale_memory", "dropped_reference", "over_context_window"] as const;
  const per = Object.fromEntries(kinds.map((k) => [k, { tp: 0, fp: 0, fn: 0 }])) as Record<(typeof kinds)[number], { tp: number; fp: number; fn: number }>;
  const expected = new Map<string, Expectation & { scenario: string }>();
  const cleanTurns = new Set<string>();
  for (const l of loaded) {
    const subjectId = (e: Expectation) => (e.subject ? (l.memoryIds.get(e.subject) ?? l.turnIds.get(e.subject)!) : "turn");
    for (const e of l.scenario.expect) expected.set(`${l.turnIds.get(e.turn)}|${e.kind}|${subjectId(e)}`, { ...e, scenario: l.scenario.name });
    for (const t of l.scenario.turns) if (!l.scenario.expect.some((e) => e.turn === t.key)) cleanTurns.add(l.turnIds.get(t.key)!);
  }
  const seen = new Set<string>();
  let onClean = 0;
  const falsePositives: Found[] = [];
  for (const f of found) {
    const key = `${f.message_id}|${f.kind}|${f.subject}`;
    const k = f.kind as (typeof kinds)[number];
    if (expected.has(key)) {
      per[k].tp++;
      seen.add(key);
    } else {
      per[k].fp++;
      falsePositives.push(f);
    }
    if (cleanTurns.has(f.message_id)) onClean++;
  }
  for (const [key, e] of expected) if (!seen.has(key)) per[e.kind].fn++;
  const metrics = kinds.map((k) => {
    const { tp, fp, fn } = per[k];
    return { kind: k, tp, fp, fn, precision: tp + fp ? tp / (tp + fp) : 1, recall: tp + fn ? tp / (tp + fn) : 1 };
  });
  return { metrics, onClean, cleanTurns: cleanTurns.size, falsePositives, missed: [...expected].filter(([k]) => !seen.has(k)).map(([, e]) => `${e.kind} ${e.turn} (${e.scenario})`) };
}
