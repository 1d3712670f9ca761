import * as api from "@/lib/api/contracts/imports";
import { withApi } from "@/lib/api/with-api";
import { dataSql } from "@/lib/api/data-sql";
import { DomainError } from "@/lib/errors/domain-errors";
import { startUpload } from "@/lib/imports/start-upload";
import { saveUpload } from "@/lib/imports/upload-file";

export const dynamic = "force-dynamic";

// The body is the file itself, streamed to disk (the proxy leaves this path alone so that it
// is never buffered). Only application/octet-stream: a form or text/plain body is what a
// cross-site page can send without a preflight, so it is refused as every JSON route does.
export const POST = withApi(api.uploadImport, async ({ req, access, query }) => {
  const type = (req.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
  if (type !== "application/octet-stream") {
    throw new DomainError("unsupported_media_type", "unsupported_media_type", "Send the file as application/octet-stream", [
      { field: "content-type", message: `got ${type || "none"}` },
    ]);
  }
  const sql = await dataSql(access);
  const file = await saveUpload(req.body);
  return startUpload(sql, access.actor.label, file, {
    format: query.format,
    dry_run: query.dry_run,
    file_name: query.file_name,
    app_id: query.app_id,
    end_user_id: query.end_user_id,
    namespace_user_index: query.namespace_user_index,
  });
});
