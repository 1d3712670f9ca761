import * as api from "@/lib/api/contracts/conversations";
import { withApi } from "@/lib/api/with-api";
import { requireLiveConversation } from "@/lib/conversations/require-live-conversation";
import { dataSql } from "@/lib/api/data-sql";
import { getHistory } from "@/lib/window/get-history";

export const dynamic = "force-dynamic";

export const GET = withApi(api.getHistory, async ({ access, params, query }) => {
  const sql = await dataSql(access);
  await requireLiveConversation(sql, params.id);
  return getHistory(sql, params.id, query);
});
