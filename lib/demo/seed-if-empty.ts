import { insertConversationRow } from "../conversations/insert-conversation-row";
import { ZConversationCreate } from "../conversations/schemas";
import { insertTurns } from "../messages/insert-turns";
import { ZTurnInput } from "../messages/schemas";
import { countTextsAllEncodings } from "../tokens/count-tokens-parallel";
import type { Database } from "../db/open-database";
import { DEFAULT_PROJECT_ID, projectSql, type ProjectSql } from "../db/project-sql";
import { ConflictError } from "../errors/domain-errors";
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
  return (await seedDemo(db, DEFAULT_PROJECT_ID)).conversations;
}

export type DemoSeeded = { conversations: number; turns: number; memories: number };

/**
 * The demo (conversations, memories with their history and retrievals, the ops assistant's
 * profile and its incidents) written into one project, in one transaction: a failure leaves the
 * project as it was. `ifEmpty`: refuse (409 project_not_empty) when the project holds a
 * conversation or a memory, checked inside the transaction under a lock of the project's own,
 * so two concurrent loads cannot both find it empty.
 */
export async function seedDemo(db: Database, projectId: string, opts: { now?: number; ifEmpty?: boolean } = {}): Promise<DemoSeeded> {
  // One moment for every date the demo writes, so turns and memories keep their order.
  const now = opts.now ?? Date.now();
  const demos = [...demoConversations(now), toolAgentDemo(now)].map((d) => ({ conversation: ZConversationCreate.parse(d.conversation), turns: d.turns.map((t) => ZTurnInput.parse(t)) }));
  // Counted in the worker pool before the transaction opens (it then holds locks only for I/O),
  // and the pool ends 10 s after its last batch: a freshly seeded server at rest holds no
  // tokenizer (~80 MB) on its request thread.
  const counts = await Promise.all(demos.map((d) => countTextsAllEncodings(d.turns.flatMap((t) => [t.query, t.answer]), { offThread: true })));
  return projectSql(db.sql, projectId).transaction(async (sql) => {
    if (opts.ifEmpty) await refuseUnlessEmpty(sql);
    for (const [i, { conversation, turns }] of demos.entries()) {
      await insertConversationRow(sql, conversation);
      await insertTurns(sql, conversation.id!, turns, { fieldPrefix: "messages", counts: counts[i], minimal: true });
    }
    const memories = await seedDemoMemories(sql, now);
    // The ops assistant's profile, in force a month before its demo day (the incidents demo's turns).
    await createProfileVersion(
      sql,
      INCIDENTS_APP,
      ZProfileVersionCreate.parse({ settings: INCIDENTS_PROFILE, effective_from: new Date(now - 30 * 86_400_000).toISOString(), note: "Facts off: the team keeps them elsewhere" }),
    );
    // The inbox a newcomer opens is what the rules find, not rows written for show. Seeding writes
    // turns below the routes, so their detection on ingest does not run: check the ops assistant's
    // day here (8 turns; tests/unit/incidents-demo.test.ts shows the other demo turns yield none).
    await detectConversations(sql, [DEMO_IDS.incidents]);
    return { conversations: demos.length, turns: demos.reduce((n, d) => n + d.turns.length, 0), memories };
  });
}

async function refuseUnlessEmpty(sql: ProjectSql) {
  await sql.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [`demo_seed:${sql.projectId}`]);
  const [held] = await sql.query<{ conversations: boolean; memories: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM conversations WHERE project_id = $1) AS conversations, EXISTS (SELECT 1 FROM memories WHERE project_id = $1) AS memories`,
    [sql.projectId],
  );
  if (held.conversations || held.memories) {
    throw new ConflictError(
      "The demo data loads only into an empty project: this one holds " + (held.conversations ? "conversations" : "memories"),
      [{ field: "project", message: held.conversations ? "has conversations" : "has memories" }],
      "project_not_empty",
    );
  }
}
