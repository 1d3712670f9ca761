import * as api from "@/lib/api/contracts/curation";
import { withApi } from "@/lib/api/with-api";
import { dataSql } from "@/lib/api/data-sql";
import { undoBulk } from "@/lib/memories/bulk-update";

export const dynamic = "force-dynamic";

export const POST = withApi(api.undoBulk, async ({ access, params, body }) => undoBulk(await dataSql(access), params.user_id, params.batch_id, body.actor));
