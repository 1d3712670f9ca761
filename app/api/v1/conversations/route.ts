import { getDb } from "@/lib/db/get-db";
import { createConversation, listConversations } from "@/lib/conversations/conversation-store";
import { ZConversationCreate, ZConversationListQuery } from "@/lib/conversations/schemas";
import { json, parseBody, parseQuery, withApi } from "@/lib/api/with-api";

export const dynamic = "force-dynamic";

export const GET = withApi(async ({ url }) => {
  const q = parseQuery(url, ZConversationListQuery);
  return listConversations((await getDb()).prisma, q);
});

export const POST = withApi(async ({ req }) => {
  const body = await parseBody(req, ZConversationCreate, 1024 * 1024);
  return json(await createConversation((await getDb()).prisma, body), 201);
});
