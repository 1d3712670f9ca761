import { getDb } from "@/lib/db/get-db";
import { deleteConversation, getConversation, updateConversation } from "@/lib/conversations/conversation-store";
import { ZConversationPatch } from "@/lib/conversations/schemas";
import { parseBody, parseId, withApi } from "@/lib/api/with-api";

export const dynamic = "force-dynamic";
type P = { id: string };

export const GET = withApi<P>(async ({ params }) => getConversation((await getDb()).prisma, parseId(params.id)));

export const PATCH = withApi<P>(async ({ req, params }) => {
  const id = parseId(params.id);
  const patch = await parseBody(req, ZConversationPatch, 64 * 1024);
  return updateConversation((await getDb()).prisma, id, patch);
});

export const DELETE = withApi<P>(async ({ params }) => {
  await deleteConversation((await getDb()).prisma, parseId(params.id));
  return new Response(null, { status: 204 });
});
