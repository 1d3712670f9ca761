import { getDb } from "@/lib/db/get-db";
import { memoryUsers } from "@/lib/memories/memory-users";
import { withApi } from "@/lib/api/with-api";

export const dynamic = "force-dynamic";

export const GET = withApi(async () => ({ data: await memoryUsers((await getDb()).sql) }));
