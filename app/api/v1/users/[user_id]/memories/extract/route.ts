import * as api from "@/lib/api/contracts/curation";
import { withApi } from "@/lib/api/with-api";
import { getDb } from "@/lib/db/get-db";
import { extractCandidates } from "@/lib/memories/extract-candidates";

export const dynamic = "force-dynamic";

/** Candidates go to the review queue; nothing is saved until approved. */
export const POST = withApi(api.extractCandidates, async ({ params, body }) => extractCandidates((await getDb()).sql, params.user_id, body));
