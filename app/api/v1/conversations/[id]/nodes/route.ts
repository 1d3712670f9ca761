import * as api from "@/lib/api/contracts/node-memory";
import { withApi } from "@/lib/api/with-api";
import { getDb } from "@/lib/db/get-db";
import { listNodes } from "@/lib/node-memory/store";

export const dynamic = "force-dynamic";

/** Nodes with memory in this conversation (no documents read). */
export const GET = withApi(api.listNodes, async ({ params }) => listNodes((await getDb()).sql, params.id));
