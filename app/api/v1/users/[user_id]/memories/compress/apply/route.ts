import { getDb } from "@/lib/db/get-db";
import { applyCompression } from "@/lib/memories/compress-memories";
import { ZCompressApplyInput } from "@/lib/memories/curation-schemas";
import { json, parseBody, parseUserId, withApi } from "@/lib/api/with-api";

export const dynamic = "force-dynamic";
type P = { user_id: string };

export const POST = withApi<P>(async ({ req, params }) => {
  const userId = parseUserId(params.user_id);
  const body = await parseBody(req, ZCompressApplyInput, 5 * 1024 * 1024);
  return json(await applyCompression((await getDb()).sql, userId, body), 201);
});
