import * as api from "@/lib/api/contracts/memories";
import { withApi } from "@/lib/api/with-api";
import { getDb } from "@/lib/db/get-db";
import { removeRelation } from "@/lib/memories/memory-relations";

export const dynamic = "force-dynamic";

/** Soft removal; the relation keeps its row with removed_at. */
export const DELETE = withApi(api.removeRelation, async ({ params }) => removeRelation((await getDb()).sql, params.id, params.relation_id));
