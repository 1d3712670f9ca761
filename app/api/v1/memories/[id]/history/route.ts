import * as api from "@/lib/api/contracts/memories";
import { withApi } from "@/lib/api/with-api";
import { getDb } from "@/lib/db/get-db";
import { requireMemory } from "@/lib/memories/load-memory";
import { memoryHistory } from "@/lib/memories/memory-history";

export const dynamic = "force-dynamic";

export const GET = withApi(api.memoryHistory, async ({ params }) => {
  const db = await getDb();
  await requireMemory(db.sql, params.id);
  return { data: await memoryHistory(db.sql, params.id) };
});
