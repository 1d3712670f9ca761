import * as api from "@/lib/api/contracts/node-memory";
import { withApi } from "@/lib/api/with-api";
import { dataSql } from "@/lib/api/data-sql";
import { parseNodeId } from "@/lib/node-memory/params";
import { getNodeHistory } from "@/lib/node-memory/store";

export const dynamic = "force-dynamic";

/** Dify's get_history_prompt_messages for one node: thread by current_message_id, then the token limit. */
export const GET = withApi(api.getNodeHistory, async ({ access, params, query }) =>
  getNodeHistory(await dataSql(access), params.id, parseNodeId(params.node_id), query),
);
