import * as api from "@/lib/api/contracts/conversations";
import { withApi } from "@/lib/api/with-api";
import { requireLiveConversation } from "@/lib/conversations/require-live-conversation";
import { dataSql } from "@/lib/api/data-sql";
import { checkIncidentsSoon } from "@/lib/incidents/on-ingest";
import { insertTurns } from "@/lib/messages/insert-turns";
import { listMessages } from "@/lib/messages/list-messages";

export const dynamic = "force-dynamic";

export const GET = withApi(api.listMessages, async ({ access, params, query }) => {
  const sql = await dataSql(access);
  await requireLiveConversation(sql, params.id);
  return listMessages(sql, params.id, query);
});

export const POST = withApi(api.appendMessage, async ({ access, params, body }) => {
  const sql = await dataSql(access);
  const [created] = await insertTurns(sql, params.id, [body]);
  checkIncidentsSoon(sql, { conversationIds: [params.id], turns: [{ id: created.id, query: body.query }] });
  return created;
});
