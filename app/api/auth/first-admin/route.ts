import { timingSafeEqual } from "node:crypto";
import { getAuth } from "@/lib/auth/auth";
import { authRoute, jsonBody, withCookiesOf } from "@/lib/auth/auth-route";
import { anyAccountExists } from "@/lib/auth/access";
import { createFirstAdmin } from "@/lib/auth/first-admin";
import { isLocalHostHeader } from "@/lib/auth/open-mode";
import { requestOrigin } from "@/lib/auth/same-origin";
import { getDb } from "@/lib/db/get-db";
import { ConflictError, ForbiddenError } from "@/lib/errors/domain-errors";

export const dynamic = "force-dynamic";

// The first admin: made on this machine (the server listens on 127.0.0.1 until then) from
// one of its own pages, or by whoever holds MEMSCOPE_API_KEY. Never whoever comes first.

function holdsBootstrapKey(req: Request): boolean {
  const key = process.env.MEMSCOPE_API_KEY?.trim();
  const m = /^Bearer\s+(.+)$/i.exec(req.headers.get("authorization") ?? "");
  if (!key || !m) return false;
  const a = Buffer.from(m[1].trim());
  const b = Buffer.from(key);
  return a.length === b.length && timingSafeEqual(a, b);
}

export const GET = authRoute(async () => {
  const db = await getDb();
  return Response.json({ accountExists: await anyAccountExists(db.prisma), needsBootstrapKey: !!process.env.MEMSCOPE_API_KEY });
});

export const POST = authRoute(async (req) => {
  const [db, auth] = await Promise.all([getDb(), getAuth()]);
  if (await anyAccountExists(db.prisma)) throw new ConflictError("An admin account exists already: sign in instead");
  const bootstrap = holdsBootstrapKey(req);
  if (!bootstrap) {
    if (process.env.MEMSCOPE_API_KEY) throw new ForbiddenError("Creating the first admin needs Authorization: Bearer <MEMSCOPE_API_KEY>", [{ field: "authorization", message: "bootstrap key required" }]);
    if (!isLocalHostHeader(req.headers.get("host")) || requestOrigin(req, process.env.MEMSCOPE_PUBLIC_URL) === "foreign") {
      throw new ForbiddenError("The first admin is created on this machine, from Memscope's own page");
    }
  }
  const body = await jsonBody(req);
  const res = await createFirstAdmin({ auth, prisma: db.prisma }, { email: body.email, password: body.password, name: body.name }, bootstrap ? "MEMSCOPE_API_KEY" : "first run on this machine");
  if (!res.ok) return new Response(res.body, { status: res.status, headers: { "content-type": "application/json" } });
  const user = await db.prisma.user.findUniqueOrThrow({ where: { email: String(body.email).trim().toLowerCase() } });
  return withCookiesOf(res, { id: user.id, email: user.email, project: "default", role: "owner" }, 201);
});
