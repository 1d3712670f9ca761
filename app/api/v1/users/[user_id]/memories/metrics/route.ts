import * as api from "@/lib/api/contracts/curation";
import { withApi } from "@/lib/api/with-api";
import { dataSql } from "@/lib/api/data-sql";
import { memoryMetrics } from "@/lib/memories/curation-metrics";

export const dynamic = "force-dynamic";

export const GET = withApi(api.memoryMetrics, async ({ access, params }) => memoryMetrics(await dataSql(access), params.user_id));
