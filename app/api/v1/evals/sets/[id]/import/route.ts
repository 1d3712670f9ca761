import * as api from "@/lib/api/contracts/evals";
import { reply, withApi } from "@/lib/api/with-api";
import { dataSql } from "@/lib/api/data-sql";
import { importCases } from "@/lib/evals/import-cases";

export const dynamic = "force-dynamic";

export const POST = withApi(api.importEvalCases, async ({ access, params, body }) => {
  const summary = await importCases(await dataSql(access), params.id, body);
  // A dry run made nothing: 200, not 201.
  return summary.dry_run ? reply(summary, 200) : summary;
});
