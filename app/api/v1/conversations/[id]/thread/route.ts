import { getDb } from "@/lib/db/get-db";
import { requireLiveConversation } from "@/lib/conversations/require-live-conversation";
import { loadThreadIds } from "@/lib/threads/load-thread";
import { ZThreadQuery } from "@/lib/messages/schemas";
import { parseId, parseQuery, withApi } from "@/lib/api/with-api";

export const dynamic = "force-dynamic";
type P = { id: string };

export const GET = withApi<P>(async ({ params, url }) => {
  const id = parseId(params.id);
  const q = parseQuery(url, ZThreadQuery);
  const db = await getDb();
  await requireLiveConversation(db.sql, id);
  const ids = await loadThreadIds(db.sql, id, q.leaf_message_id);
  return { leaf_message_id: ids[0] ?? null, message_ids: ids };
});
