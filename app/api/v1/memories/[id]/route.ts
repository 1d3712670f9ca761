import { getDb } from "@/lib/db/get-db";
import { deleteMemory } from "@/lib/memories/delete-memory";
import { requireMemory } from "@/lib/memories/load-memory";
import { ZDeleteQuery, ZMemoryPatch } from "@/lib/memories/schemas";
import { updateMemory } from "@/lib/memories/update-memory";
import { parseBody, parseId, parseQuery, withApi } from "@/lib/api/with-api";

export const dynamic = "force-dynamic";
type P = { id: string };

export const GET = withApi<P>(async ({ params }) => requireMemory((await getDb()).sql, parseId(params.id)));

export const PATCH = withApi<P>(async ({ req, params }) => {
  const id = parseId(params.id);
  const patch = await parseBody(req, ZMemoryPatch, 256 * 1024);
  return updateMemory((await getDb()).sql, id, patch);
});

export const DELETE = withApi<P>(async ({ params, url }) => {
  const id = parseId(params.id);
  const q = parseQuery(url, ZDeleteQuery);
  await deleteMemory((await getDb()).sql, id, q.confirm === "true");
  return new Response(null, { status: 204 });
});
