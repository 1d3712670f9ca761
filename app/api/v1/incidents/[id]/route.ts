import * as api from "@/lib/api/contracts/incidents";
import { withApi } from "@/lib/api/with-api";
import { dataSql } from "@/lib/api/data-sql";
import { getIncident, updateIncident } from "@/lib/incidents/store";

export const dynamic = "force-dynamic";

export const GET = withApi(api.getIncident, async ({ access, params }) => getIncident(await dataSql(access), params.id));

export const PATCH = withApi(api.updateIncident, async ({ access, params, body }) => updateIncident(await dataSql(access), params.id, body));
