import * as api from "@/lib/api/contracts/curation";
import { withApi } from "@/lib/api/with-api";
import { getDb } from "@/lib/db/get-db";
import { previewCompression } from "@/lib/memories/compress-memories";

export const dynamic = "force-dynamic";

export const POST = withApi(api.previewCompression, async ({ params, body }) => previewCompression((await getDb()).sql, params.user_id, body));
