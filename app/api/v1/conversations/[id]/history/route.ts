import { getDb } from "@/lib/db/get-db";
import { requireLiveConversation } from "@/lib/conversations/require-live-conversation";
import { getHistory } from "@/lib/window/get-history";
import { ZHistoryQuery } from "@/lib/messages/schemas";
import { parseId, parseQuery, withApi } from "@/lib/api/with-api";

export const dynamic = "force-dynamic";
type P = { id: string };

export const GET = withApi<P>(async ({ params, url }) => {
  const id = parseId(params.id);
  const q = parseQuery(url, ZHistoryQuery);
  const db = await getDb();
  await requireLiveConversation(db.sql, id);
  return getHistory(db.sql, id, q);
});
