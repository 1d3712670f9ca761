import * as api from "@/lib/api/contracts/conversations";
import { withApi } from "@/lib/api/with-api";
import { requireLiveConversation } from "@/lib/conversations/require-live-conversation";
import { getDb } from "@/lib/db/get-db";
import { getHistory } from "@/lib/window/get-history";

export const dynamic = "force-dynamic";

export const GET = withApi(api.getHistory, async ({ params, query }) => {
  const db = await getDb();
  await requireLiveConversation(db.sql, params.id);
  return getHistory(db.sql, params.id, query);
});
