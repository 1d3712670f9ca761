import { getAuth } from "@/lib/auth/auth";
import { authRoute, jsonBody, projectCookie, withCookiesOf } from "@/lib/auth/auth-route";
import { validateNewAccount } from "@/lib/auth/first-admin";
import { acceptInvitation, findOpenInvitation, viewInvitationLink } from "@/lib/auth/invitations";
import { requestOrigin } from "@/lib/auth/same-origin";
import { getDb } from "@/lib/db/get-db";
import { ConflictError, ForbiddenError } from "@/lib/errors/domain-errors";

export const dynamic = "force-dynamic";

// An invitation link: GET shows what the accept page needs (lib/auth/invitations.ts,
// viewInvitationLink); POST accepts it, signed in as the invited
// address, or creating that account ({name, password}) and signing it in.

export const GET = authRoute(async (_req, params) => {
  const db = await getDb();
  return Response.json(await viewInvitationLink(db.prisma, params.id));
});

export const POST = authRoute(async (req, params) => {
  if (requestOrigin(req, process.env.MEMSCOPE_PUBLIC_URL) !== "same") throw new ForbiddenError("This request did not come from a Memscope page: refused");
  const [db, auth] = await Promise.all([getDb(), getAuth()]);
  const inv = await findOpenInvitation(db.prisma, params.id);
  const session = await auth.api.getSession({ headers: req.headers });
  if (session) {
    const out = await acceptInvitation(db.prisma, params.id, { id: session.user.id, email: session.user.email });
    const res = Response.json(out);
    res.headers.append("set-cookie", projectCookie(out.projectId));
    return res;
  }
  if (await db.prisma.user.findUnique({ where: { email: inv.email } })) {
    throw new ConflictError(`${inv.email} has an account already: sign in, then open this link again`, [{ field: "email", message: "account exists" }]);
  }
  const body = await jsonBody(req);
  const v = validateNewAccount({ email: inv.email, password: body.password, name: body.name });
  const signUp = await auth.api.signUpEmail({ body: v, asResponse: true });
  if (!signUp.ok) return new Response(signUp.body, { status: signUp.status, headers: { "content-type": "application/json" } });
  const user = await db.prisma.user.findUniqueOrThrow({ where: { email: inv.email } });
  const out = await acceptInvitation(db.prisma, params.id, { id: user.id, email: user.email });
  const res = withCookiesOf(signUp, out, 201);
  res.headers.append("set-cookie", projectCookie(out.projectId));
  return res;
});
