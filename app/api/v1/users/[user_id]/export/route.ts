import * as api from "@/lib/api/contracts/privacy";
import { withApi } from "@/lib/api/with-api";
import { dataSql } from "@/lib/api/data-sql";
import { notFound } from "@/lib/errors/domain-errors";
import { exportUserStream } from "@/lib/privacy/export-user";

export const dynamic = "force-dynamic";

/** A user of another project, or of none, is the same 404. */
export const GET = withApi(api.exportUser, async ({ access, params }) => {
  const body = await exportUserStream(await dataSql(access), params.user_id);
  if (!body) throw notFound("User", params.user_id, "user_id");
  return new Response(body, { status: 200, headers: { "content-type": "application/json" } });
});
