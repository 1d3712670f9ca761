import * as api from "@/lib/api/contracts/evals";
import { withApi } from "@/lib/api/with-api";
import { dataSql } from "@/lib/api/data-sql";
import { importBenchmarkUpload } from "@/lib/evals/import-cases";
import { requireSet } from "@/lib/evals/sets-db";
import { requireOctetStream, spoolBody } from "@/lib/evals/spool-body";

export const dynamic = "force-dynamic";

// The body is the file, spooled to disk as it arrives (proxy.ts leaves this path alone: the
// proxy would buffer the whole body in memory).
export const POST = withApi(api.uploadEvalBenchmark, async ({ req, access, params, query }) => {
  requireOctetStream(req);
  const sql = await dataSql(access);
  // An unknown set is a 404 before a byte of the file is read.
  await requireSet(sql, params.id);
  const file = await spoolBody(req.body);
  return importBenchmarkUpload(sql, params.id, file, query);
});
