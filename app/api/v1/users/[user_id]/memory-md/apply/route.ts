import { getDb } from "@/lib/db/get-db";
import { ZMemoryMdInput } from "@/lib/memories/curation-schemas";
import { applyMemoryMd } from "@/lib/memories/memory-markdown";
import { parseBody, parseUserId, withApi } from "@/lib/api/with-api";

export const dynamic = "force-dynamic";
type P = { user_id: string };

export const POST = withApi<P>(async ({ req, params }) => {
  const userId = parseUserId(params.user_id);
  const body = await parseBody(req, ZMemoryMdInput, 6 * 1024 * 1024);
  return applyMemoryMd((await getDb()).sql, userId, body);
});
