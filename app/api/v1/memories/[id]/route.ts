import * as api from "@/lib/api/contracts/memories";
import { withApi } from "@/lib/api/with-api";
import { getDb } from "@/lib/db/get-db";
import { deleteMemory } from "@/lib/memories/delete-memory";
import { requireMemory } from "@/lib/memories/load-memory";
import { updateMemory } from "@/lib/memories/update-memory";

export const dynamic = "force-dynamic";

export const GET = withApi(api.getMemory, async ({ params }) => requireMemory((await getDb()).sql, params.id));

export const PATCH = withApi(api.updateMemory, async ({ params, body }) => updateMemory((await getDb()).sql, params.id, body));

export const DELETE = withApi(api.deleteMemory, async ({ params, query }) => {
  await deleteMemory((await getDb()).sql, params.id, query.confirm === "true");
  return new Response(null, { status: 204 });
});
