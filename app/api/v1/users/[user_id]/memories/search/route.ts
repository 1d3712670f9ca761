import * as api from "@/lib/api/contracts/memories";
import { withApi } from "@/lib/api/with-api";
import { dataSql } from "@/lib/api/data-sql";
import { retrievalOptions } from "@/lib/api/retrieval-access";
import { searchMemories } from "@/lib/memories/search-memories";
import { searchMemoriesAsOf } from "@/lib/memories/as-of";
import { parseAsOf } from "@/lib/memories/as-of/parse-as-of";

export const dynamic = "force-dynamic";

export const POST = withApi(api.searchMemories, async ({ access, params, body, query }) => {
  const asOf = parseAsOf(query.as_of);
  // As of an instant: a read of the past; nothing is logged, nothing marked accessed.
  if (asOf !== undefined) return searchMemoriesAsOf(await dataSql(access), { userId: params.user_id, asOf, input: body });
  return searchMemories(await dataSql(access), params.user_id, body, retrievalOptions(access));
});
