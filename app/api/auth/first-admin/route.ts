import { createFirstAdmin as createFirstAdminContract, firstAdminState } from "@/lib/api/contracts/auth";
import { reply, withApi } from "@/lib/api/with-api";
import { getAuth } from "@/lib/auth/auth";
import { anyAccountExists } from "@/lib/auth/access";
import { createFirstAdmin } from "@/lib/auth/first-admin";
import { isLocalHostHeader } from "@/lib/auth/open-mode";
import { holdsBootstrapKey } from "@/lib/auth/resolve-access";
import { requestOrigin } from "@/lib/auth/same-origin";
import { setCookies, signUpRefusal } from "@/lib/auth/session-routes";
import { getDb } from "@/lib/db/get-db";
import { ConflictError, ForbiddenError } from "@/lib/errors/domain-errors";

export const dynamic = "force-dynamic";

// The first admin: made on this machine (the server listens on 127.0.0.1 until then) from
// one of its own pages, or by whoever holds MEMSCOPE_API_KEY. Never whoever comes first.

export const GET = withApi(firstAdminState, async () => {
  const db = await getDb();
  return { account_exists: await anyAccountExists(db.prisma), needs_bootstrap_key: !!process.env.MEMSCOPE_API_KEY };
});

export const POST = withApi(createFirstAdminContract, async ({ req, body }) => {
  // The key first: a wrong one counts against this address's limit whatever else is wrong.
  const bootstrap = holdsBootstrapKey(req);
  if (!bootstrap && req.headers.has("authorization")) {
    throw new ForbiddenError("Wrong key: send Authorization: Bearer <MEMSCOPE_API_KEY>", [{ field: "authorization", message: "wrong key" }]);
  }
  const [db, auth] = await Promise.all([getDb(), getAuth()]);
  if (await anyAccountExists(db.prisma)) throw new ConflictError("An admin account exists already: sign in instead");
  if (!bootstrap) {
    if (process.env.MEMSCOPE_API_KEY) throw new ForbiddenError("Creating the first admin needs Authorization: Bearer <MEMSCOPE_API_KEY>", [{ field: "authorization", message: "bootstrap key required" }]);
    if (!isLocalHostHeader(req.headers.get("host")) || requestOrigin(req, process.env.MEMSCOPE_PUBLIC_URL) === "foreign") {
      throw new ForbiddenError("The first admin is created on this machine, from Memscope's own page");
    }
  }
  const res = await createFirstAdmin({ auth, db }, body, bootstrap ? "MEMSCOPE_API_KEY" : "first run on this machine");
  if (!res.ok) throw await signUpRefusal(res);
  const user = await db.prisma.user.findUniqueOrThrow({ where: { email: body.email.trim().toLowerCase() } });
  return reply({ id: user.id, email: user.email, project: "default", role: "owner" }, 201, setCookies(res));
});
