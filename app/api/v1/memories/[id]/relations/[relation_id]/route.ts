import * as api from "@/lib/api/contracts/memories";
import { withApi } from "@/lib/api/with-api";
import { dataSql } from "@/lib/api/data-sql";
import { removeRelation } from "@/lib/memories/memory-relations";

export const dynamic = "force-dynamic";

/** Soft removal; the relation keeps its row with removed_at. */
export const DELETE = withApi(api.removeRelation, async ({ access, params }) => removeRelation(await dataSql(access), params.id, params.relation_id));
