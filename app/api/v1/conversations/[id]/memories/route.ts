import * as api from "@/lib/api/contracts/provenance";
import { withApi } from "@/lib/api/with-api";
import { getProjectSql } from "@/lib/db/get-project-sql";
import { conversationMemories } from "@/lib/memories/provenance";

export const dynamic = "force-dynamic";

export const GET = withApi(api.conversationMemories, async ({ params, query, access }) =>
  conversationMemories(await getProjectSql(access.projectId), params.id, { retrievals: query.retrievals, includeDryRuns: query.include_dry_runs === "true" }),
);
