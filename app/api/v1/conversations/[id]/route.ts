import * as api from "@/lib/api/contracts/conversations";
import { withApi } from "@/lib/api/with-api";
import { deleteConversation, getConversation, updateConversation } from "@/lib/conversations/conversation-store";
import { getDb } from "@/lib/db/get-db";

export const dynamic = "force-dynamic";

export const GET = withApi(api.getConversation, async ({ params }) => getConversation((await getDb()).prisma, params.id));

export const PATCH = withApi(api.updateConversation, async ({ params, body }) =>
  updateConversation((await getDb()).prisma, params.id, body),
);

export const DELETE = withApi(api.deleteConversation, async ({ params }) => {
  await deleteConversation((await getDb()).prisma, params.id);
  return new Response(null, { status: 204 });
});
