import { getDb } from "@/lib/db/get-db";
import { bulkUpdate } from "@/lib/memories/bulk-update";
import { ZBulkInput } from "@/lib/memories/curation-schemas";
import { parseBody, parseUserId, withApi } from "@/lib/api/with-api";

export const dynamic = "force-dynamic";
type P = { user_id: string };

export const POST = withApi<P>(async ({ req, params }) => {
  const userId = parseUserId(params.user_id);
  const body = await parseBody(req, ZBulkInput, 1024 * 1024);
  return bulkUpdate((await getDb()).sql, userId, body);
});
