import * as api from "@/lib/api/contracts/curation";
import { withApi } from "@/lib/api/with-api";
import { getDb } from "@/lib/db/get-db";
import { resolveReviewItem } from "@/lib/memories/review-queue";

export const dynamic = "force-dynamic";

export const POST = withApi(api.resolveReviewItem, async ({ params, body }) => resolveReviewItem((await getDb()).sql, params.user_id, params.item_id, body));
