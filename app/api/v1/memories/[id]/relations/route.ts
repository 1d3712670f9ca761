import * as api from "@/lib/api/contracts/memories";
import { withApi } from "@/lib/api/with-api";
import { getDb } from "@/lib/db/get-db";
import { createRelation, listRelations } from "@/lib/memories/memory-relations";

export const dynamic = "force-dynamic";

export const GET = withApi(api.listRelations, async ({ params, query }) => ({
  data: await listRelations((await getDb()).sql, params.id, { includeRemoved: query.include_removed === "true" }),
}));

export const POST = withApi(api.createRelation, async ({ params, body }) => createRelation((await getDb()).sql, params.id, body));
