import * as api from "@/lib/api/contracts/memories";
import { withApi } from "@/lib/api/with-api";
import { dataSql } from "@/lib/api/data-sql";
import { createRelation, listRelations } from "@/lib/memories/memory-relations";

export const dynamic = "force-dynamic";

export const GET = withApi(api.listRelations, async ({ access, params, query }) => ({
  data: await listRelations(await dataSql(access), params.id, { includeRemoved: query.include_removed === "true" }),
}));

export const POST = withApi(api.createRelation, async ({ access, params, body }) => createRelation(await dataSql(access), params.id, body));
