import { getDb } from "@/lib/db/get-db";
import { requireLiveConversation } from "@/lib/conversations/require-live-conversation";
import { insertTurns } from "@/lib/messages/insert-turns";
import { listMessages } from "@/lib/messages/list-messages";
import { ZMessageListQuery, ZTurnInput } from "@/lib/messages/schemas";
import { json, parseBody, parseId, parseQuery, withApi } from "@/lib/api/with-api";

export const dynamic = "force-dynamic";
type P = { id: string };

export const GET = withApi<P>(async ({ params, url }) => {
  const id = parseId(params.id);
  const q = parseQuery(url, ZMessageListQuery);
  const db = await getDb();
  await requireLiveConversation(db.sql, id);
  return listMessages(db.sql, id, q);
});

export const POST = withApi<P>(async ({ req, params }) => {
  const id = parseId(params.id);
  const turn = await parseBody(req, ZTurnInput, 2 * 1024 * 1024);
  const [created] = await insertTurns((await getDb()).sql, id, [turn]);
  return json(created, 201);
});
