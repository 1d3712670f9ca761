import * as api from "@/lib/api/contracts/evals";
import { withApi } from "@/lib/api/with-api";
import { dataSql } from "@/lib/api/data-sql";
import { getRunCase } from "@/lib/evals/runs-db";

export const dynamic = "force-dynamic";

export const GET = withApi(api.getEvalRunCase, async ({ access, params }) => getRunCase(await dataSql(access), params.id, params.case_id));
