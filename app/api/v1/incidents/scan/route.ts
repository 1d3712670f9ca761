import * as api from "@/lib/api/contracts/incidents";
import { reply, withApi } from "@/lib/api/with-api";
import { dataSql } from "@/lib/api/data-sql";
import { getDb } from "@/lib/db/get-db";
import { startScan } from "@/lib/incidents/scan-job";

export const dynamic = "force-dynamic";

export const POST = withApi(api.startIncidentScan, async ({ access, body }) => reply(await startScan(await dataSql(access), body ?? {}, { embedded: (await getDb()).config.kind === "pglite" }), 202));
