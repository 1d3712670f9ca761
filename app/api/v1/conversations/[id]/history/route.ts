import * as api from "@/lib/api/contracts/conversations";
import { withApi } from "@/lib/api/with-api";
import { dataSql } from "@/lib/api/data-sql";
import { cachedHistory } from "@/lib/window/history-cache";

export const dynamic = "force-dynamic";

// cachedHistory answers 404 for a missing or deleted conversation (it reads the row anyway).
export const GET = withApi(api.getHistory, async ({ access, params, query }) => cachedHistory(await dataSql(access), params.id, query));
