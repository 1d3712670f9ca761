import * as api from "@/lib/api/contracts/imports";
import { withApi } from "@/lib/api/with-api";
import { dataSql } from "@/lib/api/data-sql";
import { listJobs } from "@/lib/imports/import-jobs";
import { startImport } from "@/lib/imports/start-import";

export const dynamic = "force-dynamic";

export const POST = withApi(api.createImport, async ({ access, body }) => startImport(await dataSql(access), access.actor.label, body));

export const GET = withApi(api.listImports, async ({ access }) => ({ data: await listJobs(await dataSql(access)) }));
