import * as api from "@/lib/api/contracts/imports";
import { withApi } from "@/lib/api/with-api";
import { getProjectSql } from "@/lib/db/get-project-sql";
import { listJobs } from "@/lib/imports/import-jobs";
import { startImport } from "@/lib/imports/start-import";

export const dynamic = "force-dynamic";

export const POST = withApi(api.createImport, async ({ access, body }) => startImport(await getProjectSql(access.projectId), access.actor.label, body));

export const GET = withApi(api.listImports, async ({ access }) => ({ data: await listJobs(await getProjectSql(access.projectId)) }));
