import * as api from "@/lib/api/contracts/evals";
import { reply, withApi } from "@/lib/api/with-api";
import { dataSql } from "@/lib/api/data-sql";
import { DomainError } from "@/lib/errors/domain-errors";
import { importBenchmarkUpload } from "@/lib/evals/import-cases";
import { requireSet } from "@/lib/evals/sets-db";
import { saveUpload } from "@/lib/imports/upload-file";

export const dynamic = "force-dynamic";

// The body is the file, streamed to a temporary file as it arrives (the imports' upload; the
// proxy leaves this path alone, as it would buffer the whole body in memory), then read from
// there record by record. Spooled rather than parsed off the socket: the import takes far
// longer than the upload, and a body still arriving after Node's requestTimeout (300 s) is cut.
export const POST = withApi(api.uploadEvalBenchmark, async ({ req, access, params, query }) => {
  const type = (req.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
  // A form or text/plain body is what a cross-site page can send without a preflight.
  if (type !== "application/octet-stream") {
    throw new DomainError("unsupported_media_type", "unsupported_media_type", "Send the file as application/octet-stream", [{ field: "content-type", message: `got ${type || "none"}` }]);
  }
  const sql = await dataSql(access);
  // An unknown set is a 404 before a byte of the file is read.
  await requireSet(sql, params.id);
  const summary = await importBenchmarkUpload(sql, params.id, await saveUpload(req.body), query);
  // A dry run made nothing: 200, not 201.
  return summary.dry_run ? reply(summary, 200) : summary;
});
