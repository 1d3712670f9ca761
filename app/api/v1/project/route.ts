import * as api from "@/lib/api/contracts/project";
import { withApi } from "@/lib/api/with-api";
import { getDb } from "@/lib/db/get-db";
import { actingAs } from "@/lib/auth/acting-as";
import { renameProject } from "@/lib/auth/projects";
import { SCOPES } from "@/lib/auth/roles";
import { NotFoundError } from "@/lib/errors/domain-errors";

export const dynamic = "force-dynamic";

export const GET = withApi(api.whoAmI, async ({ access }) => {
  const db = await getDb();
  const p = await db.prisma.organization.findUnique({ where: { id: access.projectId } });
  if (!p) throw new NotFoundError("Project", access.projectId, "project");
  const role = access.actor.kind === "account" ? (await actingAs(db.prisma, access)).role : null;
  return {
    project: { id: p.id, name: p.name, slug: p.slug, role },
    actor: { kind: access.actor.kind, label: access.actor.label },
    scopes: SCOPES.filter((s) => access.grants.has(s)),
  };
});

export const PATCH = withApi(api.renameProject, async ({ access, body }) => {
  const db = await getDb();
  return renameProject(db.prisma, access.projectId, body.name);
});
