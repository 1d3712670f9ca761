import * as api from "@/lib/api/contracts/node-memory";
import { withApi } from "@/lib/api/with-api";
import { dataSql } from "@/lib/api/data-sql";
import { parseNodeId } from "@/lib/node-memory/params";
import { clearNodeMemory, getNodeMemory } from "@/lib/node-memory/store";

export const dynamic = "force-dynamic";

/** The node's v1 document with its row version. */
export const GET = withApi(api.getNodeMemory, async ({ access, params }) =>
  getNodeMemory(await dataSql(access), params.id, parseNodeId(params.node_id)),
);

/** Dify's clear(): 204 whether or not the node had memory; 404 for an unknown conversation. */
export const DELETE = withApi(api.clearNodeMemory, async ({ access, params }) => {
  await clearNodeMemory(await dataSql(access), params.id, parseNodeId(params.node_id));
  return new Response(null, { status: 204 });
});
