import * as api from "@/lib/api/contracts/evals";
import { withApi } from "@/lib/api/with-api";
import { dataSql } from "@/lib/api/data-sql";
import { addCases, listCases } from "@/lib/evals/sets-db";

export const dynamic = "force-dynamic";

export const GET = withApi(api.listEvalCases, async ({ access, params }) => ({ data: await listCases(await dataSql(access), params.id) }));
export const POST = withApi(api.createEvalCases, async ({ access, params, body }) => addCases(await dataSql(access), params.id, body.cases));
