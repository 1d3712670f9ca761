import { getDb } from "@/lib/db/get-db";
import { memoryMetrics } from "@/lib/memories/curation-metrics";
import { parseUserId, withApi } from "@/lib/api/with-api";

export const dynamic = "force-dynamic";
type P = { user_id: string };

export const GET = withApi<P>(async ({ params }) => memoryMetrics((await getDb()).sql, parseUserId(params.user_id)));
