import { getDb } from "@/lib/db/get-db";
import { createRelation, listRelations } from "@/lib/memories/memory-relations";
import { ZRelationCreate } from "@/lib/memories/schemas";
import { json, parseBody, parseId, withApi } from "@/lib/api/with-api";

export const dynamic = "force-dynamic";
type P = { id: string };

export const GET = withApi<P>(async ({ params, url }) => ({
  data: await listRelations((await getDb()).sql, parseId(params.id), { includeRemoved: url.searchParams.get("include_removed") === "true" }),
}));

export const POST = withApi<P>(async ({ req, params }) => {
  const id = parseId(params.id);
  const body = await parseBody(req, ZRelationCreate, 64 * 1024);
  return json(await createRelation((await getDb()).sql, id, body), 201);
});
