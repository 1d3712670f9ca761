import * as api from "@/lib/api/contracts/imports";
import { withApi } from "@/lib/api/with-api";
import { dataSql } from "@/lib/api/data-sql";
import { difyApps } from "@/lib/imports/dify-apps";

export const dynamic = "force-dynamic";

export const GET = withApi(api.listDifyApps, async ({ access }) => difyApps(await dataSql(access)));
