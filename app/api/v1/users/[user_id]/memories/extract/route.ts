import * as api from "@/lib/api/contracts/curation";
import { withApi } from "@/lib/api/with-api";
import { dataSql } from "@/lib/api/data-sql";
import { extractCandidates } from "@/lib/memories/extract-candidates";

export const dynamic = "force-dynamic";

/** Candidates go to the review queue; nothing is saved until approved. */
export const POST = withApi(api.extractCandidates, async ({ access, params, body }) => extractCandidates(await dataSql(access), params.user_id, body));
