import { getDb } from "@/lib/db/get-db";
import { ZReviewListQuery } from "@/lib/memories/curation-schemas";
import { listReviewItems } from "@/lib/memories/review-queue";
import { parseQuery, parseUserId, withApi } from "@/lib/api/with-api";

export const dynamic = "force-dynamic";
type P = { user_id: string };

export const GET = withApi<P>(async ({ params, url }) => {
  const q = parseQuery(url, ZReviewListQuery);
  return listReviewItems((await getDb()).sql, parseUserId(params.user_id), q);
});
