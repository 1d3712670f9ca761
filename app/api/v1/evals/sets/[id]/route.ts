import * as api from "@/lib/api/contracts/evals";
import { withApi } from "@/lib/api/with-api";
import { dataSql } from "@/lib/api/data-sql";
import { deleteSet, requireSet } from "@/lib/evals/sets-db";

export const dynamic = "force-dynamic";

export const GET = withApi(api.getEvalSet, async ({ access, params }) => requireSet(await dataSql(access), params.id));
export const DELETE = withApi(api.deleteEvalSet, async ({ access, params }) => {
  await deleteSet(await dataSql(access), params.id);
  return new Response(null, { status: 204 });
});
