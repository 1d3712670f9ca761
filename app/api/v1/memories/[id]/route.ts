import * as api from "@/lib/api/contracts/memories";
import { withApi } from "@/lib/api/with-api";
import { dataSql } from "@/lib/api/data-sql";
import { deleteMemory } from "@/lib/memories/delete-memory";
import { requireMemory } from "@/lib/memories/load-memory";
import { updateMemory } from "@/lib/memories/update-memory";
import { requireMemoryAsOf } from "@/lib/memories/as-of";
import { parseAsOf } from "@/lib/memories/as-of/parse-as-of";

export const dynamic = "force-dynamic";

export const GET = withApi(api.getMemory, async ({ access, params, query }) => {
  const asOf = parseAsOf(query.as_of);
  return asOf === undefined ? requireMemory(await dataSql(access), params.id) : requireMemoryAsOf(await dataSql(access), params.id, asOf);
});

export const PATCH = withApi(api.updateMemory, async ({ access, params, body }) => updateMemory(await dataSql(access), params.id, body));

export const DELETE = withApi(api.deleteMemory, async ({ access, params, query }) => {
  await deleteMemory(await dataSql(access), params.id, query.confirm === "true");
  return new Response(null, { status: 204 });
});
