import * as api from "@/lib/api/contracts/curation";
import { withApi } from "@/lib/api/with-api";
import { dataSql } from "@/lib/api/data-sql";
import { bulkUpdate } from "@/lib/memories/bulk-update";

export const dynamic = "force-dynamic";

export const POST = withApi(api.bulkUpdate, async ({ access, params, body }) => bulkUpdate(await dataSql(access), params.user_id, body));
