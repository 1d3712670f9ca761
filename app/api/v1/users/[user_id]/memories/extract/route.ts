import { getDb } from "@/lib/db/get-db";
import { ZExtractInput } from "@/lib/memories/curation-schemas";
import { extractCandidates } from "@/lib/memories/extract-candidates";
import { json, parseBody, parseUserId, withApi } from "@/lib/api/with-api";

export const dynamic = "force-dynamic";
type P = { user_id: string };

/** Candidates go to the review queue; nothing is saved until approved. */
export const POST = withApi<P>(async ({ req, params }) => {
  const userId = parseUserId(params.user_id);
  const body = await parseBody(req, ZExtractInput, 64 * 1024);
  return json(await extractCandidates((await getDb()).sql, userId, body), 201);
});
