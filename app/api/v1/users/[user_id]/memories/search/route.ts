import * as api from "@/lib/api/contracts/memories";
import { withApi } from "@/lib/api/with-api";
import { dataSql } from "@/lib/api/data-sql";
import { retrievalOptions } from "@/lib/api/retrieval-access";
import { searchMemories } from "@/lib/memories/search-memories";

export const dynamic = "force-dynamic";

export const POST = withApi(api.searchMemories, async ({ access, params, body }) => searchMemories(await dataSql(access), params.user_id, body, retrievalOptions(access)));
