import { getDb } from "@/lib/db/get-db";
import { undoBulk } from "@/lib/memories/bulk-update";
import { parseOptionalBody } from "@/lib/memories/curation-db";
import { ZActorReason } from "@/lib/memories/curation-schemas";
import { parseId, parseUserId, withApi } from "@/lib/api/with-api";

export const dynamic = "force-dynamic";
type P = { user_id: string; batch_id: string };

export const POST = withApi<P>(async ({ req, params }) => {
  const userId = parseUserId(params.user_id);
  const batchId = parseId(params.batch_id, "batch_id");
  const body = await parseOptionalBody(req, ZActorReason);
  return undoBulk((await getDb()).sql, userId, batchId, body.actor);
});
