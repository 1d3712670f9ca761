import * as api from "@/lib/api/contracts/curation";
import { withApi } from "@/lib/api/with-api";
import { getDb } from "@/lib/db/get-db";
import { applyCompression } from "@/lib/memories/compress-memories";

export const dynamic = "force-dynamic";

export const POST = withApi(api.applyCompression, async ({ params, body }) => applyCompression((await getDb()).sql, params.user_id, body));
