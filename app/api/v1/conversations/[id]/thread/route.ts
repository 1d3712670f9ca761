import * as api from "@/lib/api/contracts/conversations";
import { withApi } from "@/lib/api/with-api";
import { requireLiveConversation } from "@/lib/conversations/require-live-conversation";
import { dataSql } from "@/lib/api/data-sql";
import { loadThreadIds } from "@/lib/threads/load-thread";

export const dynamic = "force-dynamic";

export const GET = withApi(api.getThread, async ({ access, params, query }) => {
  const sql = await dataSql(access);
  await requireLiveConversation(sql, params.id);
  const ids = await loadThreadIds(sql, params.id, query.leaf_message_id);
  return { leaf_message_id: ids[0] ?? null, message_ids: ids };
});
