import * as api from "@/lib/api/contracts/incidents";
import { withApi } from "@/lib/api/with-api";
import { dataSql } from "@/lib/api/data-sql";
import { incidentSummary } from "@/lib/incidents/store";

export const dynamic = "force-dynamic";

export const GET = withApi(api.incidentSummary, async ({ access, query }) => incidentSummary(await dataSql(access), query));
