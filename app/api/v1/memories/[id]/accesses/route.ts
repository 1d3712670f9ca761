import * as api from "@/lib/api/contracts/memories";
import { withApi } from "@/lib/api/with-api";
import { dataSql } from "@/lib/api/data-sql";
import { requireMemory } from "@/lib/memories/load-memory";
import { memoryAccesses } from "@/lib/memories/memory-history";

export const dynamic = "force-dynamic";

/** The retrievals that returned this memory, newest first. */
export const GET = withApi(api.memoryAccesses, async ({ access, params }) => {
  const sql = await dataSql(access);
  await requireMemory(sql, params.id);
  return { data: await memoryAccesses(sql, params.id) };
});
