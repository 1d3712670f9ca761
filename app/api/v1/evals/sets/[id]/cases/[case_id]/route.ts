import * as api from "@/lib/api/contracts/evals";
import { withApi } from "@/lib/api/with-api";
import { dataSql } from "@/lib/api/data-sql";
import { deleteCase } from "@/lib/evals/sets-db";

export const dynamic = "force-dynamic";

export const DELETE = withApi(api.deleteEvalCase, async ({ access, params }) => {
  await deleteCase(await dataSql(access), params.id, params.case_id);
  return new Response(null, { status: 204 });
});
