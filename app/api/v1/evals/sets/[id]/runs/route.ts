import * as api from "@/lib/api/contracts/evals";
import { withApi } from "@/lib/api/with-api";
import { dataSql } from "@/lib/api/data-sql";
import { runEval } from "@/lib/evals/run-eval";
import { listRuns } from "@/lib/evals/runs-db";

export const dynamic = "force-dynamic";

export const GET = withApi(api.listEvalRuns, async ({ access, params }) => ({ data: await listRuns(await dataSql(access), params.id) }));
export const POST = withApi(api.createEvalRun, async ({ access, params, body }) => runEval(await dataSql(access), params.id, body));
