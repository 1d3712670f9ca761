import * as api from "@/lib/api/contracts/curation";
import { withApi } from "@/lib/api/with-api";
import { getDb } from "@/lib/db/get-db";
import { listReviewItems } from "@/lib/memories/review-queue";

export const dynamic = "force-dynamic";

export const GET = withApi(api.listReviewItems, async ({ params, query }) => listReviewItems((await getDb()).sql, params.user_id, query));
