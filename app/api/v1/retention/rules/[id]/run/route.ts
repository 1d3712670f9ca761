import * as api from "@/lib/api/contracts/retention";
import { withApi } from "@/lib/api/with-api";
import { dataSql } from "@/lib/api/data-sql";
import { getDb } from "@/lib/db/get-db";
import { runRuleNow } from "@/lib/retention/run-rule";

export const dynamic = "force-dynamic";

export const POST = withApi(api.runRetentionRule, async ({ access, params }) =>
  runRuleNow(await getDb(), await dataSql(access), params.id, access.actor.label),
);
