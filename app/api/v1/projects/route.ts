import * as api from "@/lib/api/contracts/project";
import { withApi } from "@/lib/api/with-api";
import { getDb } from "@/lib/db/get-db";
import { createProject, listAllProjects, listMyProjects } from "@/lib/auth/projects";
import { ForbiddenError } from "@/lib/errors/domain-errors";

export const dynamic = "force-dynamic";

export const GET = withApi(api.listProjects, async ({ access }) => {
  const db = await getDb();
  if (access.actor.kind === "account" && access.actor.id) return { data: await listMyProjects(db.prisma, access.actor.id) };
  // Open mode (this machine, no accounts) may switch between all projects; a key sees its own.
  const all = access.actor.kind === "open" ? await listAllProjects(db.prisma) : [];
  return { data: all.length ? all : (await listAllProjects(db.prisma)).filter((p) => p.id === access.projectId) };
});

export const POST = withApi(api.createProject, async ({ access, body }) => {
  if (access.actor.kind !== "account" || !access.actor.id) {
    throw new ForbiddenError("Projects are created by a signed-in account (it becomes the owner)", [{ field: "actor", message: access.actor.kind }]);
  }
  const db = await getDb();
  return createProject(db.prisma, body.name, { userId: access.actor.id, email: access.actor.label });
});
