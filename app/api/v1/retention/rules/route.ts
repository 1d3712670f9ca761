import * as api from "@/lib/api/contracts/retention";
import { reply, withApi } from "@/lib/api/with-api";
import { dataSql } from "@/lib/api/data-sql";
import { createRule, listRules } from "@/lib/retention/rules";

export const dynamic = "force-dynamic";

export const GET = withApi(api.listRetentionRules, async ({ access }) => ({ data: await listRules(await dataSql(access)) }));

export const POST = withApi(api.createRetentionRule, async ({ access, body }) => reply(await createRule(await dataSql(access), body, access.actor.label), 201));
