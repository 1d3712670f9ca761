import * as api from "@/lib/api/contracts/imports";
import { withApi } from "@/lib/api/with-api";
import { getProjectSql } from "@/lib/db/get-project-sql";
import { getJob } from "@/lib/imports/import-jobs";

export const dynamic = "force-dynamic";

export const GET = withApi(api.getImport, async ({ access, params }) => getJob(await getProjectSql(access.projectId), params.id));
