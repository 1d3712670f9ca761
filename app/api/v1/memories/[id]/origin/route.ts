import * as api from "@/lib/api/contracts/provenance";
import { withApi } from "@/lib/api/with-api";
import { getProjectSql } from "@/lib/db/get-project-sql";
import { memoryOrigin } from "@/lib/memories/provenance";

export const dynamic = "force-dynamic";

export const GET = withApi(api.memoryOrigin, async ({ params, access }) => memoryOrigin(await getProjectSql(access.projectId), params.id));
