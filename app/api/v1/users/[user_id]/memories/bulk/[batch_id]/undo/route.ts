import * as api from "@/lib/api/contracts/curation";
import { withApi } from "@/lib/api/with-api";
import { getDb } from "@/lib/db/get-db";
import { undoBulk } from "@/lib/memories/bulk-update";

export const dynamic = "force-dynamic";

export const POST = withApi(api.undoBulk, async ({ params, body }) => undoBulk((await getDb()).sql, params.user_id, params.batch_id, body.actor));
