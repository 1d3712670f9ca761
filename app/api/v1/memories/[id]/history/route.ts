import * as api from "@/lib/api/contracts/memories";
import { withApi } from "@/lib/api/with-api";
import { dataSql } from "@/lib/api/data-sql";
import { requireMemory } from "@/lib/memories/load-memory";
import { memoryHistory } from "@/lib/memories/memory-history";

export const dynamic = "force-dynamic";

export const GET = withApi(api.memoryHistory, async ({ access, params }) => {
  const sql = await dataSql(access);
  await requireMemory(sql, params.id);
  return { data: await memoryHistory(sql, params.id) };
});
