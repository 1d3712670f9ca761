import * as api from "@/lib/api/contracts/curation";
import { withApi } from "@/lib/api/with-api";
import { getDb } from "@/lib/db/get-db";
import { memoryMetrics } from "@/lib/memories/curation-metrics";

export const dynamic = "force-dynamic";

export const GET = withApi(api.memoryMetrics, async ({ params }) => memoryMetrics((await getDb()).sql, params.user_id));
