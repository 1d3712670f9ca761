import { createConversation } from "../../conversations/conversation-store";
import { ZConversationCreate } from "../../conversations/schemas";
import { insertTurns } from "../../messages/insert-turns";
import { ZTurnInput } from "../../messages/schemas";
import type { Database } from "../open-database";
import { projectSql } from "../project-sql";
import { demoConversations } from "./demo-data";
import { toolAgentDemo } from "./demo-tool-agent";
import { seedDemoMemories } from "./seed-memories";

/** Loads the demo conversations into an empty database; returns how many it made. */
export async function seedIfEmpty(db: Database): Promise<number> {
  const [{ n }] = await db.sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM conversations`);
  if (n > 0) return 0;
  return seedDemo(db);
}

export async function seedDemo(db: Database): Promise<number> {
  const demos = [...demoConversations(), toolAgentDemo()];
  for (const d of demos) {
    const conversation = ZConversationCreate.parse(d.conversation);
    await createConversation(db.prisma, conversation);
    await insertTurns(projectSql(db.sql, "default") /* the demo lives in project `default` */, conversation.id!, d.turns.map((t) => ZTurnInput.parse(t)), { fieldPrefix: "messages" });
  }
  await seedDemoMemories(db);
  return demos.length;
}
