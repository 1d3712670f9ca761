import * as api from "@/lib/api/contracts/project";
import { withApi } from "@/lib/api/with-api";
import { getDb } from "@/lib/db/get-db";
import { actingAs, vouchingUser } from "@/lib/auth/acting-as";
import { createInvitation, listInvitations } from "@/lib/auth/invitations";
import { invitationAnswer } from "@/lib/auth/project-answers";

export const dynamic = "force-dynamic";

export const GET = withApi(api.listInvitations, async ({ access }) => ({ data: (await listInvitations((await getDb()).prisma, access.projectId)).map(invitationAnswer) }));

export const POST = withApi(api.createInvitation, async ({ access, body }) => {
  const db = await getDb();
  const as = await actingAs(db.prisma, access);
  // An invitation names an inviting account; a key's invitation names the project owner.
  const userId = await vouchingUser(db.prisma, access.projectId, as);
  return invitationAnswer(await createInvitation(db.prisma, access.projectId, body, { userId, label: as.label, role: as.role }));
});
