import * as api from "@/lib/api/contracts/conversations";
import { withApi } from "@/lib/api/with-api";
import { conversationFacets } from "@/lib/conversations/conversation-store";
import { getDb } from "@/lib/db/get-db";

export const dynamic = "force-dynamic";

export const GET = withApi(api.conversationFacets, async ({ access }) => conversationFacets((await getDb()).prisma, access.projectId));
