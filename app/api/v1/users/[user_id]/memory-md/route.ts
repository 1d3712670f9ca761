import * as api from "@/lib/api/contracts/curation";
import { withApi } from "@/lib/api/with-api";
import { dataSql } from "@/lib/api/data-sql";
import { exportMemoryMd } from "@/lib/memories/memory-markdown";

export const dynamic = "force-dynamic";

/** memory.md (preferences, facts, patterns) or learnings.md (skills) as text/markdown. */
export const GET = withApi(api.exportMemoryMd, async ({ access, params, query }) => {
  const text = await exportMemoryMd(await dataSql(access), params.user_id, query.file);
  return new Response(text, {
    headers: {
      "content-type": "text/markdown; charset=utf-8",
      "content-disposition": `inline; filename="${query.file}.md"`,
    },
  });
});
