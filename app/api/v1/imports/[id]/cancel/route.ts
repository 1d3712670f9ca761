import * as api from "@/lib/api/contracts/imports";
import { withApi } from "@/lib/api/with-api";
import { dataSql } from "@/lib/api/data-sql";
import { cancelJob } from "@/lib/imports/import-jobs";

export const dynamic = "force-dynamic";

export const POST = withApi(api.cancelImport, async ({ access, params }) => cancelJob(await dataSql(access), params.id));
