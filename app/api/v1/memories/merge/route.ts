import * as api from "@/lib/api/contracts/curation";
import { withApi } from "@/lib/api/with-api";
import { dataSql } from "@/lib/api/data-sql";
import { mergeMemories } from "@/lib/memories/merge-memories";

export const dynamic = "force-dynamic";

/** Merge 2..50 active memories of one user into a new one; the sources are archived. */
export const POST = withApi(api.mergeMemories, async ({ access, body }) => mergeMemories(await dataSql(access), body));
