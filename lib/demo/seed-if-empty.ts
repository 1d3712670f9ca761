import { createConversation } from "../conversations/conversation-store";
import { ZConversationCreate } from "../conversations/schemas";
import { insertTurns } from "../messages/insert-turns";
import { ZTurnInput } from "../messages/schemas";
import { countTextsAllEncodings } from "../tokens/count-tokens-parallel";
import type { Database } from "../db/open-database";
import { DEFAULT_PROJECT_ID, projectSql } from "../db/project-sql";
import { detectConversations } from "../incidents/detect";
import { createProfileVersion } from "../profiles/profile-versions";
import { ZProfileVersionCreate } from "../profiles/schemas";
import { DEMO_IDS, demoConversations, INCIDENTS_APP, INCIDENTS_PROFILE } from "./demo-data";
import { toolAgentDemo } from "./demo-tool-agent";
import { seedDemoMemories } from "./seed-memories";

/** Loads the demo conversations into an empty database (project `default`); returns how many it made. */
export async function seedIfEmpty(db: Database): Promise<number> {
  const [{ n }] = await db.sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM conversations`);
  if (n > 0) return 0;
  return seedDemo(db);
}

export async function seedDemo(db: Database, now = Date.now()): Promise<number> {
  // One moment for every date the demo writes, so turns and memories keep their order.
  const demos = [...demoConversations(now), toolAgentDemo(now)];
  for (const d of demos) {
    const conversation = ZConversationCreate.parse(d.conversation);
    await createConversation(db.prisma, DEFAULT_PROJECT_ID, conversation);
    const turns = d.turns.map((t) => ZTurnInput.parse(t));
    // Counted in the worker pool, which ends 10 s after its last batch: a freshly seeded server
    // at rest holds no tokenizer (~80 MB) on its request thread.
    const counts = await countTextsAllEncodings(turns.flatMap((t) => [t.query, t.answer]), { offThread: true });
    await insertTurns(projectSql(db.sql, DEFAULT_PROJECT_ID), conversation.id!, turns, { fieldPrefix: "messages", counts });
  }
  await seedDemoMemories(db, now);
  // The ops assistant's profile, in force a month before its demo day (the incidents demo's turns).
  await createProfileVersion(
    projectSql(db.sql, DEFAULT_PROJECT_ID),
    INCIDENTS_APP,
    ZProfileVersionCreate.parse({ settings: INCIDENTS_PROFILE, effective_from: new Date(now - 30 * 86_400_000).toISOString(), note: "Facts off: the team keeps them elsewhere" }),
  );
  // The inbox a newcomer opens is what the rules find, not rows written for show. Seeding writes
  // turns below the routes, so their detection on ingest does not run: check the ops assistant's
  // day here (8 turns; tests/unit/incidents-demo.test.ts shows the other demo turns yield none).
  await detectConversations(projectSql(db.sql, DEFAULT_PROJECT_ID), [DEMO_IDS.incidents]);
  return demos.length;
}
