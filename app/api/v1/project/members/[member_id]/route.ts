import * as api from "@/lib/api/contracts/project";
import { withApi } from "@/lib/api/with-api";
import { getDb } from "@/lib/db/get-db";
import { actingAs } from "@/lib/auth/acting-as";
import { memberAnswer } from "@/lib/auth/project-answers";
import { changeMemberRole, removeMember } from "@/lib/auth/project-members";

export const dynamic = "force-dynamic";

export const PATCH = withApi(api.changeMemberRole, async ({ access, params, body }) => {
  const db = await getDb();
  const as = await actingAs(db.prisma, access);
  return memberAnswer(await changeMemberRole(db.prisma, access.projectId, params.member_id, body.role, { userId: as.userId ?? "", label: as.label, role: as.role }));
});

export const DELETE = withApi(api.removeMember, async ({ access, params }) => {
  const db = await getDb();
  const as = await actingAs(db.prisma, access);
  await removeMember(db.prisma, access.projectId, params.member_id, { userId: as.userId ?? "", label: as.label, role: as.role });
  return new Response(null, { status: 204 });
});
