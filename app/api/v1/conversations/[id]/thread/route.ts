import * as api from "@/lib/api/contracts/conversations";
import { withApi } from "@/lib/api/with-api";
import { requireLiveConversation } from "@/lib/conversations/require-live-conversation";
import { getDb } from "@/lib/db/get-db";
import { loadThreadIds } from "@/lib/threads/load-thread";

export const dynamic = "force-dynamic";

export const GET = withApi(api.getThread, async ({ params, query }) => {
  const db = await getDb();
  await requireLiveConversation(db.sql, params.id);
  const ids = await loadThreadIds(db.sql, params.id, query.leaf_message_id);
  return { leaf_message_id: ids[0] ?? null, message_ids: ids };
});
