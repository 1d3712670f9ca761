import * as api from "@/lib/api/contracts/memories";
import { withApi } from "@/lib/api/with-api";
import { getDb } from "@/lib/db/get-db";
import { setMemoryStatus } from "@/lib/memories/set-memory-status";

export const dynamic = "force-dynamic";

export const POST = withApi(api.restoreMemory, async ({ params, body }) => setMemoryStatus((await getDb()).sql, params.id, "active", body));
