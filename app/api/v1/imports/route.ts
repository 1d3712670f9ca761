import * as api from "@/lib/api/contracts/imports";
import { withApi } from "@/lib/api/with-api";
import { getDb } from "@/lib/db/get-db";
import { listJobs } from "@/lib/imports/import-jobs";
import { startImport } from "@/lib/imports/start-import";

export const dynamic = "force-dynamic";

export const POST = withApi(api.createImport, async ({ body }) => startImport((await getDb()).sql, body));

export const GET = withApi(api.listImports, async () => ({ data: await listJobs((await getDb()).sql) }));
