import * as api from "@/lib/api/contracts/retention";
import { withApi } from "@/lib/api/with-api";
import { dataSql } from "@/lib/api/data-sql";
import { deleteRule, updateRule } from "@/lib/retention/rules";

export const dynamic = "force-dynamic";

export const PATCH = withApi(api.updateRetentionRule, async ({ access, params, body }) => updateRule(await dataSql(access), params.id, body, access.actor.label));

export const DELETE = withApi(api.deleteRetentionRule, async ({ access, params }) => {
  await deleteRule(await dataSql(access), params.id, access.actor.label);
  return new Response(null, { status: 204 });
});
