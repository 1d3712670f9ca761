import * as api from "@/lib/api/contracts/curation";
import { withApi } from "@/lib/api/with-api";
import { dataSql } from "@/lib/api/data-sql";
import { resolveReviewItem } from "@/lib/memories/review-queue";

export const dynamic = "force-dynamic";

export const POST = withApi(api.resolveReviewItem, async ({ access, params, body }) => resolveReviewItem(await dataSql(access), params.user_id, params.item_id, body));
