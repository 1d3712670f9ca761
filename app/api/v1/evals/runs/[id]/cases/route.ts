import * as api from "@/lib/api/contracts/evals";
import { withApi } from "@/lib/api/with-api";
import { dataSql } from "@/lib/api/data-sql";
import { listRunCases } from "@/lib/evals/runs-db";

export const dynamic = "force-dynamic";

export const GET = withApi(api.listEvalRunCases, async ({ access, params, query }) => ({ data: await listRunCases(await dataSql(access), params.id, { only: query.only }) }));
