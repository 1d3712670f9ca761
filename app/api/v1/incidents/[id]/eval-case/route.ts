import * as api from "@/lib/api/contracts/incidents";
import { reply, withApi } from "@/lib/api/with-api";
import { dataSql } from "@/lib/api/data-sql";
import { evalCaseFromIncident } from "@/lib/incidents/store";

export const dynamic = "force-dynamic";

export const POST = withApi(api.incidentEvalCase, async ({ access, params, body }) => reply(await evalCaseFromIncident(await dataSql(access), params.id, body.set_id), 201));
