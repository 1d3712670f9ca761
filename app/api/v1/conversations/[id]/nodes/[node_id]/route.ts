import { getDb } from "@/lib/db/get-db";
import { parseId, withApi } from "@/lib/api/with-api";
import { parseNodeId } from "@/lib/node-memory/params";
import { clearNodeMemory, getNodeMemory } from "@/lib/node-memory/store";

export const dynamic = "force-dynamic";
type P = { id: string; node_id: string };

/** The node's v1 document with its row version. */
export const GET = withApi<P>(async ({ params }) => {
  const id = parseId(params.id);
  const nodeId = parseNodeId(params.node_id);
  const db = await getDb();
  return getNodeMemory(db.sql, id, nodeId);
});

/** Dify's clear(): 204 whether or not the node had memory; 404 for an unknown conversation. */
export const DELETE = withApi<P>(async ({ params }) => {
  const id = parseId(params.id);
  const nodeId = parseNodeId(params.node_id);
  const db = await getDb();
  await clearNodeMemory(db.sql, id, nodeId);
  return new Response(null, { status: 204 });
});
