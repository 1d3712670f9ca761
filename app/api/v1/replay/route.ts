import * as api from "@/lib/api/contracts/replay";
import { withApi } from "@/lib/api/with-api";
import { dataSql } from "@/lib/api/data-sql";
import { replayTurn } from "@/lib/replay/replay-turn";

export const dynamic = "force-dynamic";

export const POST = withApi(api.replayTurn, async ({ access, body }) => replayTurn(await dataSql(access), body));
