import { switchProject } from "@/lib/api/contracts/auth";
import { reply, withApi } from "@/lib/api/with-api";
import { getAuth } from "@/lib/auth/auth";
import { anyAccountExists } from "@/lib/auth/access";
import { projectCookie, refuseOtherPages, setCookies } from "@/lib/auth/session-routes";
import { getDb } from "@/lib/db/get-db";
import { NotFoundError } from "@/lib/errors/domain-errors";

export const dynamic = "force-dynamic";

// The project switcher: remembers the chosen project in an httpOnly cookie, after checking
// the signed-in account is a member (or, before any account exists, that it exists).
export const POST = withApi(switchProject, async ({ req, body }) => {
  refuseOtherPages(req);
  const id = body.project_id;
  const [db, auth] = await Promise.all([getDb(), getAuth()]);
  const session = await auth.api.getSession({ headers: req.headers });
  const ok = session
    ? await db.prisma.member.findFirst({ where: { organizationId: id, userId: session.user.id }, select: { id: true } })
    : !(await anyAccountExists(db.prisma)) && (await db.prisma.organization.findUnique({ where: { id }, select: { id: true } }));
  if (!ok) throw new NotFoundError("Project", id, "project_id");
  return reply({ project_id: id }, 200, setCookies(null, projectCookie(id)));
});
