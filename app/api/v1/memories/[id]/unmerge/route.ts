import * as api from "@/lib/api/contracts/curation";
import { withApi } from "@/lib/api/with-api";
import { dataSql } from "@/lib/api/data-sql";
import { unmergeMemory } from "@/lib/memories/unmerge-memory";

export const dynamic = "force-dynamic";

export const POST = withApi(api.unmergeMemory, async ({ access, params, body }) => unmergeMemory(await dataSql(access), params.id, body));
