import * as api from "@/lib/api/contracts/evals";
import { withApi } from "@/lib/api/with-api";
import { dataSql } from "@/lib/api/data-sql";
import { compareStoredRuns } from "@/lib/evals/runs-db";

export const dynamic = "force-dynamic";

export const GET = withApi(api.compareEvalRuns, async ({ access, params, query }) => compareStoredRuns(await dataSql(access), params.id, query.base));
