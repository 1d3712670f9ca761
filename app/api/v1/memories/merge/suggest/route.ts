import * as api from "@/lib/api/contracts/curation";
import { withApi } from "@/lib/api/with-api";
import { getDb } from "@/lib/db/get-db";
import { suggestMerge } from "@/lib/memories/merge-memories";

export const dynamic = "force-dynamic";

export const POST = withApi(api.suggestMerge, async ({ body }) => suggestMerge((await getDb()).sql, body.ids));
