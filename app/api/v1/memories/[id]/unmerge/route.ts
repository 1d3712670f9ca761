import * as api from "@/lib/api/contracts/curation";
import { withApi } from "@/lib/api/with-api";
import { getDb } from "@/lib/db/get-db";
import { unmergeMemory } from "@/lib/memories/unmerge-memory";

export const dynamic = "force-dynamic";

export const POST = withApi(api.unmergeMemory, async ({ params, body }) => unmergeMemory((await getDb()).sql, params.id, body));
