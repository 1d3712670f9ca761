import * as api from "@/lib/api/contracts/memories";
import { withApi } from "@/lib/api/with-api";
import { getDb } from "@/lib/db/get-db";
import { requireMemory } from "@/lib/memories/load-memory";
import { memoryAccesses } from "@/lib/memories/memory-history";

export const dynamic = "force-dynamic";

/** The retrievals that returned this memory, newest first. */
export const GET = withApi(api.memoryAccesses, async ({ params }) => {
  const db = await getDb();
  await requireMemory(db.sql, params.id);
  return { data: await memoryAccesses(db.sql, params.id) };
});
