import * as api from "@/lib/api/contracts/curation";
import { withApi } from "@/lib/api/with-api";
import { getDb } from "@/lib/db/get-db";
import { bulkUpdate } from "@/lib/memories/bulk-update";

export const dynamic = "force-dynamic";

export const POST = withApi(api.bulkUpdate, async ({ params, body }) => bulkUpdate((await getDb()).sql, params.user_id, body));
