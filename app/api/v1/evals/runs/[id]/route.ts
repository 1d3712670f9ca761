import * as api from "@/lib/api/contracts/evals";
import { withApi } from "@/lib/api/with-api";
import { dataSql } from "@/lib/api/data-sql";
import { getRun } from "@/lib/evals/runs-db";

export const dynamic = "force-dynamic";

export const GET = withApi(api.getEvalRun, async ({ access, params }) => getRun(await dataSql(access), params.id));
