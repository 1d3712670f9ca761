import * as api from "@/lib/api/contracts/curation";
import { withApi } from "@/lib/api/with-api";
import { getDb } from "@/lib/db/get-db";
import { applyMemoryMd } from "@/lib/memories/memory-markdown";

export const dynamic = "force-dynamic";

export const POST = withApi(api.applyMemoryMd, async ({ params, body }) => applyMemoryMd((await getDb()).sql, params.user_id, body));
