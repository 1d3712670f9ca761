import * as api from "@/lib/api/contracts/curation";
import { withApi } from "@/lib/api/with-api";
import { dataSql } from "@/lib/api/data-sql";
import { suggestMerge } from "@/lib/memories/merge-memories";

export const dynamic = "force-dynamic";

export const POST = withApi(api.suggestMerge, async ({ access, body }) => suggestMerge(await dataSql(access), body.ids));
