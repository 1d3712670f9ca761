import { getDb } from "@/lib/db/get-db";
import { previewCompression } from "@/lib/memories/compress-memories";
import { parseOptionalBody } from "@/lib/memories/curation-db";
import { ZCompressPreviewInput } from "@/lib/memories/curation-schemas";
import { parseUserId, withApi } from "@/lib/api/with-api";

export const dynamic = "force-dynamic";
type P = { user_id: string };

export const POST = withApi<P>(async ({ req, params }) => {
  const userId = parseUserId(params.user_id);
  const body = await parseOptionalBody(req, ZCompressPreviewInput);
  return previewCompression((await getDb()).sql, userId, body);
});
