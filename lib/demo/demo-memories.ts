import type { MemoryType } from "../memories/schemas";
import { DEMO_IDS } from "./demo-data";

// Demo long-term memories for the seeded users: every type, a spread of importance and
// access history, a near duplicate (lands in the review queue) and a `contradicts` relation.

export type DemoMemory = {
  user: string;
  type: MemoryType;
  content: string;
  importance: number;
  structured?: Record<string, unknown>;
  /** Days since last access; undefined = never accessed. */
  accessedDaysAgo?: number;
  accessCount?: number;
  /** What the agent asked when it retrieved this memory (each seeded access is a logged retrieval). */
  query?: string;
  createdDaysAgo: number;
  /** Saved with a lower dedupe threshold, so the demo review queue has a near duplicate. */
  dedupeThreshold?: number;
  /** The demo conversation it was learned in (its Origin, and that conversation's Memories tab). */
  session?: string;
};

const ANA = "ana@example.com";
const MAX = "max.k@example.com";
const LI = "li.wei@example.com";

export const DEMO_MEMORIES: DemoMemory[] = [
  { user: ANA, type: "preference", content: "Prefers slow mornings and no activities before 10am when travelling", query: "Plan a relaxed first morning in Lisbon", importance: 0.7, accessedDaysAgo: 2, accessCount: 9, createdDaysAgo: 50 },
  { user: ANA, type: "preference", content: "Does not eat shellfish", query: "Which restaurants in Alfama suit my diet?", importance: 0.95, structured: { category: "diet", key: "avoid", value: "shellfish" }, accessedDaysAgo: 1, accessCount: 21, createdDaysAgo: 52 },
  { user: ANA, type: "preference", content: "Daily travel budget is 120 euros", query: "How much can I spend per day in Lisbon?", importance: 0.8, structured: { category: "budget", currency: "EUR", per_day: 120 }, accessedDaysAgo: 5, accessCount: 6, createdDaysAgo: 52 },
  { user: ANA, type: "preference", content: "Daily travel budget is 90 euros", query: "What is my daily budget for Porto?", importance: 0.4, structured: { category: "budget", currency: "EUR", per_day: 90 }, accessedDaysAgo: 200, accessCount: 1, createdDaysAgo: 210 },
  { user: ANA, type: "preference", content: "Likes fado music and small live venues", query: "What should I do on Friday evening?", importance: 0.6, accessedDaysAgo: 12, accessCount: 4, createdDaysAgo: 49 },
  { user: ANA, type: "preference", content: "Prefers a window seat on flights", query: "Book my flight to Lisbon", importance: 0.5, createdDaysAgo: 120, accessedDaysAgo: 110, accessCount: 2 },
  { user: ANA, type: "preference", content: "Prefers window seats on flights", importance: 0.5, createdDaysAgo: 30 },
  { user: ANA, type: "fact", content: "Lives in Berlin and travels mostly in Europe", query: "Where am I travelling from?", importance: 0.7, structured: { entity: "home", city: "Berlin" }, accessedDaysAgo: 3, accessCount: 14, createdDaysAgo: 300 },
  { user: ANA, type: "fact", content: "Booked the Alfama guesthouse in Lisbon for three nights in October", query: "Where am I staying in Lisbon?", importance: 0.6, accessedDaysAgo: 20, accessCount: 3, createdDaysAgo: 51, session: DEMO_IDS.branching },
  { user: ANA, type: "fact", content: "Return flight from Lisbon is TAP at 18:40", query: "When does my flight home leave?", importance: 0.5, createdDaysAgo: 51, accessedDaysAgo: 45, accessCount: 1, session: DEMO_IDS.branching },
  { user: ANA, type: "fact", content: "Has a 24h Viva Viagem card for Lisbon public transport", importance: 0.3, createdDaysAgo: 130 },
  { user: ANA, type: "fact", content: "Visited Porto in 2024 and loved the Ribeira district", importance: 0.35, createdDaysAgo: 400 },
  { user: ANA, type: "fact", content: "Took the train from Porto to Coimbra in 2024", importance: 0.25, createdDaysAgo: 395 },
  { user: ANA, type: "fact", content: "Stayed in a guesthouse near Porto's São Bento station in 2024", importance: 0.25, createdDaysAgo: 398 },
  { user: ANA, type: "pattern", content: "Plans trips about six weeks ahead, usually on Sunday evenings", query: "When should I start planning the autumn trip?", importance: 0.55, structured: { activity: "trip_planning", day_of_week: "sunday" }, accessedDaysAgo: 40, accessCount: 2, createdDaysAgo: 90 },
  { user: ANA, type: "pattern", content: "Asks for a day-by-day plan, then regenerates the first day to make it slower", importance: 0.45, createdDaysAgo: 60 },
  { user: ANA, type: "skill", content: "Trip planning: check opening days first, then group sights by neighbourhood, then add food stops", query: "Plan day two in Lisbon", importance: 0.7, structured: { skill_name: "trip_planning", workflow: ["opening_days", "group_by_area", "food_stops"] }, accessedDaysAgo: 7, accessCount: 5, createdDaysAgo: 80 },
  { user: MAX, type: "preference", content: "Prefers Parquet over CSV for exports", query: "Which format should the weekly export use?", importance: 0.75, structured: { category: "exports", format: "parquet" }, accessedDaysAgo: 1, accessCount: 8, createdDaysAgo: 20 },
  { user: MAX, type: "preference", content: "Wants weekly exports every Monday at 07:00", query: "When does my scheduled export run?", importance: 0.7, accessedDaysAgo: 6, accessCount: 4, createdDaysAgo: 20 },
  { user: MAX, type: "preference", content: "Wants weekly exports every Monday at 7:00", importance: 0.6, createdDaysAgo: 2, dedupeThreshold: 0.85 },
  { user: MAX, type: "fact", content: "Timezone is Europe/Berlin", query: "What time is 07:00 for me?", importance: 0.85, structured: { timezone: "Europe/Berlin" }, accessedDaysAgo: 1, accessCount: 11, createdDaysAgo: 200 },
  { user: MAX, type: "fact", content: "Workspace exports are about 120 thousand rows", importance: 0.5, createdDaysAgo: 20 },
  { user: MAX, type: "pattern", content: "Reports problems on Monday mornings, right after the weekly export", importance: 0.4, createdDaysAgo: 15 },
  { user: MAX, type: "skill", content: "Large exports: queue a background export and email the link instead of streaming", query: "My export keeps timing out", importance: 0.65, accessedDaysAgo: 10, accessCount: 3, createdDaysAgo: 25 },
  { user: LI, type: "preference", content: "Prefers charts with direct labels instead of legends", query: "Review this revenue chart", importance: 0.7, accessedDaysAgo: 4, accessCount: 5, createdDaysAgo: 40 },
  { user: LI, type: "preference", content: "Wants chart axes to start at zero", importance: 0.8, createdDaysAgo: 40 },
  { user: LI, type: "fact", content: "Works on the analytics team at TechCorp", importance: 0.6, structured: { entity: "company", name: "TechCorp" }, createdDaysAgo: 100 },
  { user: LI, type: "skill", content: "Chart review: check the axis baseline, then labels, then colour contrast", importance: 0.6, createdDaysAgo: 35 },
];

/** Pairs (by content) the seed relates: [source, target, type]. */
export const DEMO_RELATIONS: [string, string, "supports" | "contradicts" | "refines"][] = [
  ["Daily travel budget is 90 euros", "Daily travel budget is 120 euros", "contradicts"],
  ["Has a 24h Viva Viagem card for Lisbon public transport", "Daily travel budget is 120 euros", "supports"],
  ["Asks for a day-by-day plan, then regenerates the first day to make it slower", "Prefers slow mornings and no activities before 10am when travelling", "supports"],
  ["Trip planning: check opening days first, then group sights by neighbourhood, then add food stops", "Prefers slow mornings and no activities before 10am when travelling", "refines"],
];
