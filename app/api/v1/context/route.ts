import * as api from "@/lib/api/contracts/context";
import { withApi } from "@/lib/api/with-api";
import { assembleContext } from "@/lib/context/assemble-context";
import { getDb } from "@/lib/db/get-db";

export const dynamic = "force-dynamic";

export const POST = withApi(api.assembleContext, async ({ body }) => assembleContext((await getDb()).sql, body));
