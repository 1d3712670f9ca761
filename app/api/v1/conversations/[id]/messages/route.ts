import * as api from "@/lib/api/contracts/conversations";
import { withApi } from "@/lib/api/with-api";
import { requireLiveConversation } from "@/lib/conversations/require-live-conversation";
import { getDb } from "@/lib/db/get-db";
import { getProjectSql } from "@/lib/db/get-project-sql";
import { insertTurns } from "@/lib/messages/insert-turns";
import { listMessages } from "@/lib/messages/list-messages";

export const dynamic = "force-dynamic";

export const GET = withApi(api.listMessages, async ({ params, query }) => {
  const db = await getDb();
  await requireLiveConversation(db.sql, params.id);
  return listMessages(db.sql, params.id, query);
});

export const POST = withApi(api.appendMessage, async ({ access, params, body }) => {
  const [created] = await insertTurns(await getProjectSql(access.projectId), params.id, [body]);
  return created;
});
