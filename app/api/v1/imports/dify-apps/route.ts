import * as api from "@/lib/api/contracts/imports";
import { withApi } from "@/lib/api/with-api";
import { getDb } from "@/lib/db/get-db";
import { difyApps } from "@/lib/imports/dify-apps";

export const dynamic = "force-dynamic";

export const GET = withApi(api.listDifyApps, async () => difyApps((await getDb()).sql));
