import * as api from "@/lib/api/contracts/curation";
import { withApi } from "@/lib/api/with-api";
import { dataSql } from "@/lib/api/data-sql";
import { previewMemoryMd } from "@/lib/memories/memory-markdown";

export const dynamic = "force-dynamic";

export const POST = withApi(api.previewMemoryMd, async ({ access, params, body }) => previewMemoryMd(await dataSql(access), params.user_id, body));
