import { getDb } from "@/lib/db/get-db";
import { ZMergeSuggestInput } from "@/lib/memories/curation-schemas";
import { suggestMerge } from "@/lib/memories/merge-memories";
import { parseBody, withApi } from "@/lib/api/with-api";

export const dynamic = "force-dynamic";

export const POST = withApi(async ({ req }) => {
  const body = await parseBody(req, ZMergeSuggestInput, 64 * 1024);
  return suggestMerge((await getDb()).sql, body.ids);
});
