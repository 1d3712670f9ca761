import { getDb } from "@/lib/db/get-db";
import { ZMemoryMdQuery } from "@/lib/memories/curation-schemas";
import { exportMemoryMd } from "@/lib/memories/memory-markdown";
import { parseQuery, parseUserId, withApi } from "@/lib/api/with-api";

export const dynamic = "force-dynamic";
type P = { user_id: string };

/** memory.md (preferences, facts, patterns) or learnings.md (skills) as text/markdown. */
export const GET = withApi<P>(async ({ params, url }) => {
  const userId = parseUserId(params.user_id);
  const q = parseQuery(url, ZMemoryMdQuery);
  const text = await exportMemoryMd((await getDb()).sql, userId, q.file);
  return new Response(text, {
    headers: {
      "content-type": "text/markdown; charset=utf-8",
      "content-disposition": `inline; filename="${q.file}.md"`,
    },
  });
});
