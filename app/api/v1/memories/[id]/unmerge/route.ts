import { getDb } from "@/lib/db/get-db";
import { parseOptionalBody } from "@/lib/memories/curation-db";
import { ZActorReason } from "@/lib/memories/curation-schemas";
import { unmergeMemory } from "@/lib/memories/unmerge-memory";
import { parseId, withApi } from "@/lib/api/with-api";

export const dynamic = "force-dynamic";
type P = { id: string };

export const POST = withApi<P>(async ({ req, params }) => {
  const id = parseId(params.id);
  const body = await parseOptionalBody(req, ZActorReason);
  return unmergeMemory((await getDb()).sql, id, body);
});
