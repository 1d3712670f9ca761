import * as api from "@/lib/api/contracts/evals";
import { withApi } from "@/lib/api/with-api";
import { dataSql } from "@/lib/api/data-sql";
import { importCases } from "@/lib/evals/import-cases";

export const dynamic = "force-dynamic";

export const POST = withApi(api.importEvalCases, async ({ access, params, body }) => importCases(await dataSql(access), params.id, body));
