import * as api from "@/lib/api/contracts/imports";
import { withApi } from "@/lib/api/with-api";
import { dataSql } from "@/lib/api/data-sql";
import { activeMemories, claudeCodeMemoryMd } from "@/lib/memories/memory-files-export";

export const dynamic = "force-dynamic";

export const GET = withApi(api.exportClaudeCodeMd, async ({ access, params }) => {
  const text = claudeCodeMemoryMd(params.user_id, await activeMemories(await dataSql(access), params.user_id));
  return new Response(text, { headers: { "content-type": "text/markdown; charset=utf-8", "content-disposition": 'inline; filename="MEMORY.md"' } });
});
