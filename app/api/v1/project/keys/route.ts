import * as api from "@/lib/api/contracts/project";
import { withApi } from "@/lib/api/with-api";
import { getDb } from "@/lib/db/get-db";
import { getAuth } from "@/lib/auth/auth";
import { actingAs, vouchingUser } from "@/lib/auth/acting-as";
import { createProjectKey, listProjectKeys } from "@/lib/auth/project-keys";

export const dynamic = "force-dynamic";

export const GET = withApi(api.listKeys, async ({ access }) => ({ data: await listProjectKeys((await getDb()).prisma, access.projectId) }));

export const POST = withApi(api.createKey, async ({ access, body }) => {
  const [db, auth] = await Promise.all([getDb(), getAuth()]);
  const as = await actingAs(db.prisma, access);
  const userId = await vouchingUser(db.prisma, access.projectId, as);
  return createProjectKey({ auth, prisma: db.prisma }, access.projectId, body, { userId, label: as.label });
});
