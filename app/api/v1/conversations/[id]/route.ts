import * as api from "@/lib/api/contracts/conversations";
import { withApi } from "@/lib/api/with-api";
import { deleteConversation, getConversation, updateConversation } from "@/lib/conversations/conversation-store";
import { getDb } from "@/lib/db/get-db";

export const dynamic = "force-dynamic";

export const GET = withApi(api.getConversation, async ({ access, params }) => getConversation((await getDb()).prisma, access.projectId, params.id));

export const PATCH = withApi(api.updateConversation, async ({ access, params, body }) =>
  updateConversation((await getDb()).prisma, access.projectId, params.id, body),
);

export const DELETE = withApi(api.deleteConversation, async ({ access, params }) => {
  await deleteConversation((await getDb()).prisma, access.projectId, params.id);
  return new Response(null, { status: 204 });
});
