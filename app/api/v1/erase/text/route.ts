import * as api from "@/lib/api/contracts/privacy";
import { withApi } from "@/lib/api/with-api";
import { dataSql } from "@/lib/api/data-sql";
import { ValidationError } from "@/lib/errors/domain-errors";
import { runTextErasure } from "@/lib/privacy/run-erasure";

export const dynamic = "force-dynamic";

export const POST = withApi(api.eraseText, async ({ access, body }) => {
  if (!body.dry_run && !body.confirm) {
    throw new ValidationError("Erasing needs confirm: true (run with dry_run: true first to see the matches)", [{ field: "confirm", message: "must be true" }], "confirmation_required");
  }
  const r = await runTextErasure(await dataSql(access), [...new Set(body.strings)], body.user_id ?? null, {
    dryRun: body.dry_run,
    physical: body.physical,
    by: access.actor.label,
  });
  return r.dry_run
    ? { dry_run: true, matches: r.matches, rows: {}, memories_reembedded: 0, receipt: null }
    : { dry_run: false, matches: r.matches, rows: r.rows, memories_reembedded: r.memories_reembedded, receipt: r.receipt };
});
