import * as api from "@/lib/api/contracts/incidents";
import { withApi } from "@/lib/api/with-api";
import { dataSql } from "@/lib/api/data-sql";
import { listIncidents } from "@/lib/incidents/store";

export const dynamic = "force-dynamic";

export const GET = withApi(api.listIncidents, async ({ access, query }) => listIncidents(await dataSql(access), query));
