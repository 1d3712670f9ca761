import { getDb } from "@/lib/db/get-db";
import { parseId, withApi } from "@/lib/api/with-api";
import { listNodes } from "@/lib/node-memory/store";

export const dynamic = "force-dynamic";
type P = { id: string };

/** Nodes with memory in this conversation (no documents read). */
export const GET = withApi<P>(async ({ params }) => {
  const id = parseId(params.id);
  const db = await getDb();
  return listNodes(db.sql, id);
});
