import { getAuth } from "@/lib/auth/auth";
import { authRoute } from "@/lib/auth/auth-route";
import { readAuthState } from "@/lib/auth/auth-state";
import { getDb } from "@/lib/db/get-db";

export const dynamic = "force-dynamic";

/** What the browser shows: signed in or not, the open-mode banner, projects for the switcher. */
export const GET = authRoute(async (req) => {
  const [db, auth] = await Promise.all([getDb(), getAuth()]);
  return Response.json(await readAuthState({ auth, prisma: db.prisma }, req), { headers: { "cache-control": "no-store" } });
});
