import { getDb } from "@/lib/db/get-db";
import { requireMemory } from "@/lib/memories/load-memory";
import { memoryHistory } from "@/lib/memories/memory-history";
import { parseId, withApi } from "@/lib/api/with-api";

export const dynamic = "force-dynamic";
type P = { id: string };

export const GET = withApi<P>(async ({ params }) => {
  const id = parseId(params.id);
  const db = await getDb();
  await requireMemory(db.sql, id);
  return { data: await memoryHistory(db.sql, id) };
});
