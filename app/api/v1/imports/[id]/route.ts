import * as api from "@/lib/api/contracts/imports";
import { withApi } from "@/lib/api/with-api";
import { dataSql } from "@/lib/api/data-sql";
import { getJob } from "@/lib/imports/import-jobs";

export const dynamic = "force-dynamic";

export const GET = withApi(api.getImport, async ({ access, params }) => getJob(await dataSql(access), params.id));
