import * as api from "@/lib/api/contracts/node-memory";
import { withApi } from "@/lib/api/with-api";
import { dataSql } from "@/lib/api/data-sql";
import { listNodes } from "@/lib/node-memory/store";

export const dynamic = "force-dynamic";

/** Nodes with memory in this conversation (no documents read). */
export const GET = withApi(api.listNodes, async ({ access, params }) => listNodes(await dataSql(access), params.id));
