import { getDb } from "@/lib/db/get-db";
import { ZReviewResolve } from "@/lib/memories/curation-schemas";
import { resolveReviewItem } from "@/lib/memories/review-queue";
import { parseBody, parseId, parseUserId, withApi } from "@/lib/api/with-api";

export const dynamic = "force-dynamic";
type P = { user_id: string; item_id: string };

export const POST = withApi<P>(async ({ req, params }) => {
  const userId = parseUserId(params.user_id);
  const itemId = parseId(params.item_id, "item_id");
  const body = await parseBody(req, ZReviewResolve, 256 * 1024);
  return resolveReviewItem((await getDb()).sql, userId, itemId, body);
});
