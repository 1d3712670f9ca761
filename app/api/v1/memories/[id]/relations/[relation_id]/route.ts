import { getDb } from "@/lib/db/get-db";
import { removeRelation } from "@/lib/memories/memory-relations";
import { parseId, withApi } from "@/lib/api/with-api";

export const dynamic = "force-dynamic";
type P = { id: string; relation_id: string };

/** Soft removal; the relation keeps its row with removed_at. */
export const DELETE = withApi<P>(async ({ params }) =>
  removeRelation((await getDb()).sql, parseId(params.id), parseId(params.relation_id, "relation_id")),
);
