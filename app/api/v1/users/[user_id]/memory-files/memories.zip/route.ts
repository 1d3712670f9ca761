import * as api from "@/lib/api/contracts/imports";
import { withApi } from "@/lib/api/with-api";
import { dataSql } from "@/lib/api/data-sql";
import { activeMemories, memoriesZip } from "@/lib/memories/memory-files-export";

export const dynamic = "force-dynamic";

export const GET = withApi(api.exportMemoriesDir, async ({ access, params }) => {
  const zip = memoriesZip(params.user_id, await activeMemories(await dataSql(access), params.user_id));
  return new Response(Buffer.from(zip), { headers: { "content-type": "application/zip", "content-disposition": 'attachment; filename="memories.zip"' } });
});
