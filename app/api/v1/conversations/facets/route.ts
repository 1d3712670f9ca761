import { getDb } from "@/lib/db/get-db";
import { conversationFacets } from "@/lib/conversations/conversation-store";
import { withApi } from "@/lib/api/with-api";

export const dynamic = "force-dynamic";

/** Distinct app and user ids, for filter pickers. */
export const GET = withApi(async () => conversationFacets((await getDb()).prisma));
