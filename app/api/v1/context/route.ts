import * as api from "@/lib/api/contracts/context";
import { withApi } from "@/lib/api/with-api";
import { assembleContext } from "@/lib/context/assemble-context";
import { getProjectSql } from "@/lib/db/get-project-sql";

export const dynamic = "force-dynamic";

export const POST = withApi(api.assembleContext, async ({ access, body }) => assembleContext(await getProjectSql(access.projectId), body));
