import * as api from "@/lib/api/contracts/curation";
import { withApi } from "@/lib/api/with-api";
import { dataSql } from "@/lib/api/data-sql";
import { previewCompression } from "@/lib/memories/compress-memories";

export const dynamic = "force-dynamic";

export const POST = withApi(api.previewCompression, async ({ access, params, body }) => previewCompression(await dataSql(access), params.user_id, body));
