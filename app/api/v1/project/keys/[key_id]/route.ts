import * as api from "@/lib/api/contracts/project";
import { withApi } from "@/lib/api/with-api";
import { getDb } from "@/lib/db/get-db";
import { actingAs } from "@/lib/auth/acting-as";
import { revokeProjectKey } from "@/lib/auth/project-keys";

export const dynamic = "force-dynamic";

export const DELETE = withApi(api.revokeKey, async ({ access, params }) => {
  const db = await getDb();
  const as = await actingAs(db.prisma, access);
  await revokeProjectKey(db.prisma, access.projectId, params.key_id, { userId: as.userId ?? "", label: as.label });
  return new Response(null, { status: 204 });
});
