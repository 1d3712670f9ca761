import * as api from "@/lib/api/contracts/incidents";
import { withApi } from "@/lib/api/with-api";
import { dataSql } from "@/lib/api/data-sql";
import { getScan } from "@/lib/incidents/scan-job";

export const dynamic = "force-dynamic";

export const GET = withApi(api.getIncidentScan, async ({ access, params }) => getScan(await dataSql(access), params.id));
