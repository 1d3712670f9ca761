import "server-only";
import { headers } from "next/headers";
import { resolveAccess } from "@/lib/auth/resolve-access";
import { getDb } from "@/lib/db/get-db";

/**
 * The conversation's name for the page's <title>, read on the server for this browser's project
 * (its session cookie, or this machine's open mode), so the tab is named before the client loads.
 * Null when the caller may not see it or it does not exist: the title then says no more than
 * "Conversation", the same for a foreign id as for a fresh one.
 */
export async function conversationTitle(id: string): Promise<string | null> {
  try {
    const h = await headers();
    const access = await resolveAccess(new Request(`http://${h.get("host") ?? "localhost"}/conversations/${encodeURIComponent(id)}`, { headers: h }));
    if (!access) return null;
    const db = await getDb();
    const row = await db.prisma.conversation.findFirst({ where: { id, projectId: access.projectId, deletedAt: null }, select: { name: true } });
    return row ? row.name || "Untitled conversation" : null;
  } catch {
    // Not a uuid, a refused origin, a database still opening: the generic title.
    return null;
  }
}
