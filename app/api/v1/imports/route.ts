import * as api from "@/lib/api/contracts/imports";
import { withApi } from "@/lib/api/with-api";
import { getDb } from "@/lib/db/get-db";
import { listJobs } from "@/lib/imports/import-jobs";
import { startImport } from "@/lib/imports/start-import";

export const dynamic = "force-dynamic";

export const POST = withApi(api.createImport, async ({ access, body }) => startImport((await getDb()).sql, access.projectId, body));

export const GET = withApi(api.listImports, async ({ access }) => ({ data: await listJobs((await getDb()).sql, access.projectId) }));
