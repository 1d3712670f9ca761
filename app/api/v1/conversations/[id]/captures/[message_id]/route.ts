import * as api from "@/lib/api/contracts/capture";
import { withApi } from "@/lib/api/with-api";
import { dataSql } from "@/lib/api/data-sql";
import { sentVsModelled } from "@/lib/capture/sent-vs-modelled";

export const dynamic = "force-dynamic";

export const GET = withApi(api.getSentVsModelled, async ({ access, params }) => sentVsModelled(await dataSql(access), params.id, params.message_id));
