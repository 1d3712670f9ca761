import * as api from "@/lib/api/contracts/memories";
import { withApi } from "@/lib/api/with-api";
import { getDb } from "@/lib/db/get-db";
import { searchMemories } from "@/lib/memories/search-memories";

export const dynamic = "force-dynamic";

export const POST = withApi(api.searchMemories, async ({ params, body }) => searchMemories((await getDb()).sql, params.user_id, body));
