import * as api from "@/lib/api/contracts/privacy";
import { withApi } from "@/lib/api/with-api";
import { dataSql } from "@/lib/api/data-sql";
import { ValidationError } from "@/lib/errors/domain-errors";
import { runUserErasure } from "@/lib/privacy/run-erasure";

export const dynamic = "force-dynamic";

export const POST = withApi(api.eraseUser, async ({ access, params, body }) => {
  const sql = await dataSql(access);
  if (!body.dry_run && !body.confirm) {
    // Checked after the 404 of an unknown user: the dry run answers that first.
    await runUserErasure(sql, params.user_id, { dryRun: true, physical: false, by: access.actor.label });
    throw new ValidationError("Erasing needs confirm: true (run with dry_run: true first to see what goes)", [{ field: "confirm", message: "must be true" }], "confirmation_required");
  }
  const r = await runUserErasure(sql, params.user_id, { dryRun: body.dry_run, physical: body.physical, by: access.actor.label });
  return r.dry_run ? { dry_run: true, counts: r.counts, total: r.total, receipt: null } : { dry_run: false, counts: r.receipt.counts, total: r.receipt.total, receipt: r.receipt };
});
