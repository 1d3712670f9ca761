import * as api from "@/lib/api/contracts/conversations";
import { withApi } from "@/lib/api/with-api";
import { createConversation, listConversations } from "@/lib/conversations/conversation-store";
import { getDb } from "@/lib/db/get-db";

export const dynamic = "force-dynamic";

export const GET = withApi(api.listConversations, async ({ access, query }) => listConversations((await getDb()).prisma, access.projectId, query));

export const POST = withApi(api.createConversation, async ({ access, body }) => createConversation((await getDb()).prisma, access.projectId, body));
