import { getDb } from "@/lib/db/get-db";
import { requireConversation } from "@/lib/conversations/conversation-store";
import { getHistory } from "@/lib/window/get-history";
import { ZHistoryQuery } from "@/lib/messages/schemas";
import { parseId, parseQuery, withApi } from "@/lib/api/with-api";

export const dynamic = "force-dynamic";
type P = { id: string };

export const GET = withApi<P>(async ({ params, url }) => {
  const id = parseId(params.id);
  const q = parseQuery(url, ZHistoryQuery);
  const db = await getDb();
  await requireConversation(db.prisma, id);
  return getHistory(db.sql, id, q);
});
