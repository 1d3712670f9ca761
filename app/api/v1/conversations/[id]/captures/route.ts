import * as api from "@/lib/api/contracts/capture";
import { withApi } from "@/lib/api/with-api";
import { dataSql } from "@/lib/api/data-sql";
import { listCapturedTurns } from "@/lib/capture/sent-vs-modelled";

export const dynamic = "force-dynamic";

export const GET = withApi(api.listCapturedTurns, async ({ access, params }) => ({ data: await listCapturedTurns(await dataSql(access), params.id) }));
