import * as api from "@/lib/api/contracts/node-memory";
import { withApi } from "@/lib/api/with-api";
import { dataSql } from "@/lib/api/data-sql";
import { parseNodeId } from "@/lib/node-memory/params";
import { addNodeTurn } from "@/lib/node-memory/store";

export const dynamic = "force-dynamic";

/** Dify's add_messages: one user + assistant turn, appended with optimistic versioning. */
export const POST = withApi(api.addNodeTurn, async ({ access, params, body }) =>
  addNodeTurn(await dataSql(access), params.id, parseNodeId(params.node_id), body),
);
