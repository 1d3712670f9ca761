import * as api from "@/lib/api/contracts/curation";
import { withApi } from "@/lib/api/with-api";
import { dataSql } from "@/lib/api/data-sql";
import { applyMemoryMd } from "@/lib/memories/memory-markdown";

export const dynamic = "force-dynamic";

export const POST = withApi(api.applyMemoryMd, async ({ access, params, body }) => applyMemoryMd(await dataSql(access), params.user_id, body));
