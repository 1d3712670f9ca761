import { getAuth } from "@/lib/auth/auth";
import { authRoute, jsonBody, projectCookie } from "@/lib/auth/auth-route";
import { anyAccountExists } from "@/lib/auth/access";
import { requestOrigin } from "@/lib/auth/same-origin";
import { getDb } from "@/lib/db/get-db";
import { ForbiddenError, NotFoundError, ValidationError } from "@/lib/errors/domain-errors";

export const dynamic = "force-dynamic";

// The project switcher: remembers the chosen project in an httpOnly cookie, after checking
// the signed-in account is a member (or, before any account exists, that it exists).
export const POST = authRoute(async (req) => {
  if (requestOrigin(req, process.env.MEMSCOPE_PUBLIC_URL) !== "same") throw new ForbiddenError("This request did not come from a Memscope page: refused");
  const body = await jsonBody(req);
  const id = typeof body.projectId === "string" ? body.projectId.trim() : "";
  if (!id) throw new ValidationError("Name a project", [{ field: "projectId", message: "required" }]);
  const [db, auth] = await Promise.all([getDb(), getAuth()]);
  const session = await auth.api.getSession({ headers: req.headers });
  const ok = session
    ? await db.prisma.member.findFirst({ where: { organizationId: id, userId: session.user.id }, select: { id: true } })
    : !(await anyAccountExists(db.prisma)) && (await db.prisma.organization.findUnique({ where: { id }, select: { id: true } }));
  if (!ok) throw new NotFoundError("Project", id, "projectId");
  const res = Response.json({ projectId: id });
  res.headers.append("set-cookie", projectCookie(id));
  return res;
});
