import * as api from "@/lib/api/contracts/evals";
import { withApi } from "@/lib/api/with-api";
import { dataSql } from "@/lib/api/data-sql";
import { createSet, listSets } from "@/lib/evals/sets-db";

export const dynamic = "force-dynamic";

export const GET = withApi(api.listEvalSets, async ({ access, query }) => ({ data: await listSets(await dataSql(access), { name: query.name }) }));
export const POST = withApi(api.createEvalSet, async ({ access, body }) => createSet(await dataSql(access), body));
