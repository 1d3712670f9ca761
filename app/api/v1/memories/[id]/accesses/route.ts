import { getDb } from "@/lib/db/get-db";
import { requireMemory } from "@/lib/memories/load-memory";
import { memoryAccesses } from "@/lib/memories/memory-history";
import { parseId, withApi } from "@/lib/api/with-api";

export const dynamic = "force-dynamic";
type P = { id: string };

/** The retrievals that returned this memory, newest first. */
export const GET = withApi<P>(async ({ params }) => {
  const id = parseId(params.id);
  const db = await getDb();
  await requireMemory(db.sql, id);
  return { data: await memoryAccesses(db.sql, id) };
});
