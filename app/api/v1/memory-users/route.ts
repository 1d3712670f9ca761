import * as api from "@/lib/api/contracts/memories";
import { withApi } from "@/lib/api/with-api";
import { getDb } from "@/lib/db/get-db";
import { memoryUsers } from "@/lib/memories/memory-users";

export const dynamic = "force-dynamic";

export const GET = withApi(api.memoryUsers, async () => ({ data: await memoryUsers((await getDb()).sql) }));
