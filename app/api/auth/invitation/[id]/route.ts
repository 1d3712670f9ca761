import { acceptInvitationLink, viewInvitationLink as viewContract } from "@/lib/api/contracts/auth";
import { reply, withApi } from "@/lib/api/with-api";
import { getAuth } from "@/lib/auth/auth";
import { validateNewAccount } from "@/lib/auth/first-admin";
import { acceptInvitation, findOpenInvitation, viewInvitationLink } from "@/lib/auth/invitations";
import { projectCookie, refuseOtherPages, setCookies, signUpRefusal } from "@/lib/auth/session-routes";
import { getDb } from "@/lib/db/get-db";
import { ConflictError } from "@/lib/errors/domain-errors";

export const dynamic = "force-dynamic";

// An invitation link: GET shows what the accept page needs (lib/auth/invitations.ts,
// viewInvitationLink); POST accepts it, signed in as the invited
// address, or creating that account ({name, password}) and signing it in.

export const GET = withApi(viewContract, async ({ params }) => {
  const db = await getDb();
  return viewInvitationLink(db.prisma, params.id);
});

export const POST = withApi(acceptInvitationLink, async ({ req, params, body }) => {
  refuseOtherPages(req);
  const [db, auth] = await Promise.all([getDb(), getAuth()]);
  const inv = await findOpenInvitation(db.prisma, params.id);
  const session = await auth.api.getSession({ headers: req.headers });
  if (session) {
    const out = await acceptInvitation(db.prisma, params.id, { id: session.user.id, email: session.user.email });
    return reply({ project_id: out.projectId, role: out.role }, 200, setCookies(null, projectCookie(out.projectId)));
  }
  if (await db.prisma.user.findUnique({ where: { email: inv.email } })) {
    throw new ConflictError(`${inv.email} has an account already: sign in, then open this link again`, [{ field: "email", message: "account exists" }]);
  }
  const v = validateNewAccount({ email: inv.email, password: body.password, name: body.name });
  const signUp = await auth.api.signUpEmail({ body: v, asResponse: true });
  if (!signUp.ok) throw await signUpRefusal(signUp);
  const user = await db.prisma.user.findUniqueOrThrow({ where: { email: inv.email } });
  const out = await acceptInvitation(db.prisma, params.id, { id: user.id, email: user.email });
  return reply({ project_id: out.projectId, role: out.role }, 201, setCookies(signUp, projectCookie(out.projectId)));
});
