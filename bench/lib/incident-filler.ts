import { randomUUID } from "node:crypto";
import type { ProjectSql } from "../../lib/db/project-sql";
import { insertTurns } from "../../lib/messages/insert-turns";
import { ZTurnInput } from "../../lib/messages/schemas";
import { contentKey } from "../../lib/memories/normalize-content";

// bench:incidents' ordinary conversations: 20 turns of everyday questions, each user with 30
// memories made the day before (facts of many topics), none captured.

export const FILLER_TURNS = 20;
export const FILLER_MEMORIES = 30;

const FACTS = [
  "Lives in Lisbon", "Allergic to peanuts", "Prefers aisle seats on flights", "Works as a night nurse", "Has two cats, Miso and Tofu",
  "Drives a Volkswagen Golf", "Vegetarian for ten years", "Daughter's name is Lina", "Plays the cello on weekends", "Training for the Berlin marathon",
  "Speaks Portuguese and German", "Drinks oat milk coffee", "Hates horror movies", "Birthday is on March 3", "Learning Japanese",
  "Works remotely on Fridays", "Has a dentist appointment on Tuesday at 9", "Prefers trains over planes", "Supports Benfica", "Grows tomatoes on the balcony",
  "Is saving for a house", "Reads science fiction", "Takes the 8:10 bus to work", "Wife is called Marta", "Owns an electric bike",
  "Keeps a gratitude journal", "Dislikes cilantro", "Volunteers at the food bank", "Has a peanut-free kitchen", "Goes climbing on Wednesdays",
];
const QUESTIONS = [
  "What's a good recipe for a quick lunch?", "Can you summarise this article for me?", "How do I fix a flat tyre?", "Tell me a fun fact about octopuses.",
  "What should I pack for a weekend in the mountains?", "How long should I boil an egg?", "Write a short thank-you note to a colleague.",
  "Which train goes to Porto in the morning?", "What's the difference between a latte and a flat white?", "Recommend a podcast about history.",
  "How do I keep basil alive indoors?", "What are good stretches after running?", "Explain compound interest simply.", "Plan a rainy-day activity for kids.",
];

export async function loadFiller(sql: ProjectSql, n: number) {
  const base = Date.parse("2026-09-01T08:00:00Z");
  const memRows: unknown[] = [];
  const eventRows: unknown[] = [];
  for (let i = 0; i < n; i++) {
    const user = `filler-${i}`;
    const conversationId = randomUUID();
    const start = base + i * 3_600_000;
    await sql.query(`INSERT INTO conversations (project_id, id, app_id, end_user_id, name, created_at, updated_at) VALUES ($1, $2, 'filler', $3, 'daily chat', $4, $4)`, [
      sql.projectId,
      conversationId,
      user,
      new Date(start),
    ]);
    let parent: string | null = null;
    const turns = Array.from({ length: FILLER_TURNS }, (_, j) => {
      const id = randomUUID();
      const t = { id, parent_message_id: parent, query: QUESTIONS[(i + j) % QUESTIONS.length], answer: `Here is a helpful answer number ${j}.`, created_at: new Date(start + j * 60_000).toISOString() };
      parent = id;
      return ZTurnInput.parse(t);
    });
    await insertTurns(sql, conversationId, turns, { minimal: true });
    for (let k = 0; k < FILLER_MEMORIES; k++) {
      const id = randomUUID();
      const content = FACTS[(i + k) % FACTS.length];
      const created = new Date(start - 86_400_000).toISOString();
      memRows.push({ id, user_id: user, content, content_key: contentKey(content), created_at: created });
      eventRows.push({ id: randomUUID(), memory_id: id, user_id: user, after: { content, status: "active", memory_type: "fact" }, created_at: created });
    }
    if (memRows.length >= 3000 || i === n - 1) {
      await sql.query(
        `INSERT INTO memories (project_id, id, user_id, memory_type, content, content_key, created_at, updated_at)
         SELECT $1, x.id, x.user_id, 'fact', x.content, x.content_key, x.created_at, x.created_at FROM jsonb_to_recordset($2::jsonb) AS x(id uuid, user_id text, content text, content_key text, created_at timestamptz)`,
        [sql.projectId, JSON.stringify(memRows)],
      );
      await sql.query(
        `INSERT INTO memory_events (project_id, id, memory_id, user_id, event_type, actor, after, created_at)
         SELECT $1, x.id, x.memory_id, x.user_id, 'create', 'api'::actor, x.after, x.created_at FROM jsonb_to_recordset($2::jsonb) AS x(id uuid, memory_id uuid, user_id text, after jsonb, created_at timestamptz)`,
        [sql.projectId, JSON.stringify(eventRows)],
      );
      memRows.length = 0;
      eventRows.length = 0;
    }
  }
}

