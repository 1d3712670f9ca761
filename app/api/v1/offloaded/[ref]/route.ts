import * as api from "@/lib/api/contracts/context";
import { withApi } from "@/lib/api/with-api";
import { dataSql } from "@/lib/api/data-sql";
import { readOffload } from "@/lib/strategies/offloaded-contents";

export const dynamic = "force-dynamic";

/** The full content that auto_context replaced by a reference. */
export const GET = withApi(api.readOffloaded, async ({ access, params }) => readOffload(await dataSql(access), params.ref));
