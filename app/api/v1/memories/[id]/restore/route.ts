import { getDb } from "@/lib/db/get-db";
import { setMemoryStatus } from "@/lib/memories/set-memory-status";
import { ZActorOnly } from "@/lib/memories/schemas";
import { parseBody, parseId, withApi } from "@/lib/api/with-api";

export const dynamic = "force-dynamic";
type P = { id: string };

export const POST = withApi<P>(async ({ req, params }) => {
  const id = parseId(params.id);
  const body = await parseBody(req, ZActorOnly, 16 * 1024, { optional: true });
  return setMemoryStatus((await getDb()).sql, id, "active", body);
});
