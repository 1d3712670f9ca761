import { authState } from "@/lib/api/contracts/auth";
import { reply, withApi } from "@/lib/api/with-api";
import { getAuth } from "@/lib/auth/auth";
import { readAuthState } from "@/lib/auth/auth-state";
import { getDb } from "@/lib/db/get-db";

export const dynamic = "force-dynamic";

/** What the browser shows: signed in or not, the open-mode banner, projects for the switcher. */
export const GET = withApi(authState, async ({ req }) => {
  const [db, auth] = await Promise.all([getDb(), getAuth()]);
  return reply(await readAuthState({ auth, prisma: db.prisma }, req), 200, new Headers({ "cache-control": "no-store" }));
});
