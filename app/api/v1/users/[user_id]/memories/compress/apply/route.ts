import * as api from "@/lib/api/contracts/curation";
import { withApi } from "@/lib/api/with-api";
import { dataSql } from "@/lib/api/data-sql";
import { applyCompression } from "@/lib/memories/compress-memories";

export const dynamic = "force-dynamic";

export const POST = withApi(api.applyCompression, async ({ access, params, body }) => applyCompression(await dataSql(access), params.user_id, body));
