import { getDb } from "@/lib/db/get-db";
import { parseId, parseQuery, withApi } from "@/lib/api/with-api";
import { parseNodeId } from "@/lib/node-memory/params";
import { ZNodeHistoryQuery } from "@/lib/node-memory/schemas";
import { getNodeHistory } from "@/lib/node-memory/store";

export const dynamic = "force-dynamic";
type P = { id: string; node_id: string };

/** Dify's get_history_prompt_messages for one node: thread by current_message_id, then the token limit. */
export const GET = withApi<P>(async ({ params, url }) => {
  const id = parseId(params.id);
  const nodeId = parseNodeId(params.node_id);
  const q = parseQuery(url, ZNodeHistoryQuery);
  const db = await getDb();
  return getNodeHistory(db.sql, id, nodeId, q);
});
