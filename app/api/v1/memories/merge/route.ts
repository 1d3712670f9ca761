import { getDb } from "@/lib/db/get-db";
import { ZMergeInput } from "@/lib/memories/curation-schemas";
import { mergeMemories } from "@/lib/memories/merge-memories";
import { json, parseBody, withApi } from "@/lib/api/with-api";

export const dynamic = "force-dynamic";

/** Merge 2..50 active memories of one user into a new one; the sources are archived. */
export const POST = withApi(async ({ req }) => {
  const body = await parseBody(req, ZMergeInput, 256 * 1024);
  return json(await mergeMemories((await getDb()).sql, body), 201);
});
