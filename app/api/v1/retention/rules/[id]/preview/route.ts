import * as api from "@/lib/api/contracts/retention";
import { withApi } from "@/lib/api/with-api";
import { dataSql } from "@/lib/api/data-sql";
import { previewRule } from "@/lib/retention/run-rule";

export const dynamic = "force-dynamic";

export const GET = withApi(api.previewRetentionRule, async ({ access, params }) => previewRule(await dataSql(access), params.id));
