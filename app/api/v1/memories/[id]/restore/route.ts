import * as api from "@/lib/api/contracts/memories";
import { withApi } from "@/lib/api/with-api";
import { dataSql } from "@/lib/api/data-sql";
import { setMemoryStatus } from "@/lib/memories/set-memory-status";

export const dynamic = "force-dynamic";

export const POST = withApi(api.restoreMemory, async ({ access, params, body }) => setMemoryStatus(await dataSql(access), params.id, "active", body));
