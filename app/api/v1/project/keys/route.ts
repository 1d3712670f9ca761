import * as api from "@/lib/api/contracts/project";
import { withApi } from "@/lib/api/with-api";
import { getDb } from "@/lib/db/get-db";
import { getAuth } from "@/lib/auth/auth";
import { actingAs, vouchingUser } from "@/lib/auth/acting-as";
import { keyAnswer, keyInput } from "@/lib/auth/project-answers";
import { createProjectKey, listProjectKeys } from "@/lib/auth/project-keys";

export const dynamic = "force-dynamic";

export const GET = withApi(api.listKeys, async ({ access }) => ({ data: (await listProjectKeys((await getDb()).prisma, access.projectId)).map(keyAnswer) }));

export const POST = withApi(api.createKey, async ({ access, body }) => {
  const [db, auth] = await Promise.all([getDb(), getAuth()]);
  const as = await actingAs(db.prisma, access);
  const userId = await vouchingUser(db.prisma, access.projectId, as);
  const created = await createProjectKey({ auth, prisma: db.prisma }, access.projectId, keyInput(body), { userId, label: as.label });
  return { ...keyAnswer(created), key: created.key };
});
