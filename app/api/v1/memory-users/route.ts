import * as api from "@/lib/api/contracts/memories";
import { withApi } from "@/lib/api/with-api";
import { dataSql } from "@/lib/api/data-sql";
import { memoryUsers } from "@/lib/memories/memory-users";

export const dynamic = "force-dynamic";

export const GET = withApi(api.memoryUsers, async ({ access }) => ({ data: await memoryUsers(await dataSql(access)) }));
