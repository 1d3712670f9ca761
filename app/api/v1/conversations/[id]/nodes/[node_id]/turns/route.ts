import { getDb } from "@/lib/db/get-db";
import { json, parseBody, parseId, withApi } from "@/lib/api/with-api";
import { parseNodeId } from "@/lib/node-memory/params";
import { ZAddTurnInput } from "@/lib/node-memory/schemas";
import { addNodeTurn } from "@/lib/node-memory/store";

export const dynamic = "force-dynamic";
type P = { id: string; node_id: string };

const MAX_TURN_BYTES = 4 * 1024 * 1024;

/** Dify's add_messages: one user + assistant turn, appended with optimistic versioning. */
export const POST = withApi<P>(async ({ req, params }) => {
  const id = parseId(params.id);
  const nodeId = parseNodeId(params.node_id);
  const body = await parseBody(req, ZAddTurnInput, MAX_TURN_BYTES);
  const db = await getDb();
  return json(await addNodeTurn(db.sql, id, nodeId, body), 201);
});
