import { getDb } from "@/lib/db/get-db";
import { searchMemories } from "@/lib/memories/search-memories";
import { ZSearchInput } from "@/lib/memories/schemas";
import { parseBody, parseUserId, withApi } from "@/lib/api/with-api";

export const dynamic = "force-dynamic";
type P = { user_id: string };

export const POST = withApi<P>(async ({ req, params }) => {
  const body = await parseBody(req, ZSearchInput, 64 * 1024);
  return searchMemories((await getDb()).sql, parseUserId(params.user_id), body);
});
