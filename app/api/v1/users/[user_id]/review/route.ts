import * as api from "@/lib/api/contracts/curation";
import { withApi } from "@/lib/api/with-api";
import { dataSql } from "@/lib/api/data-sql";
import { listReviewItems } from "@/lib/memories/review-queue";

export const dynamic = "force-dynamic";

export const GET = withApi(api.listReviewItems, async ({ access, params, query }) => listReviewItems(await dataSql(access), params.user_id, query));
