import * as api from "@/lib/api/contracts/imports";
import { withApi } from "@/lib/api/with-api";
import { getDb } from "@/lib/db/get-db";
import { getJob } from "@/lib/imports/import-jobs";

export const dynamic = "force-dynamic";

export const GET = withApi(api.getImport, async ({ access, params }) => getJob((await getDb()).sql, access.projectId, params.id));
