import { randomUUID } from "node:crypto";
import type { PrismaClient } from "../generated/prisma/client";
import { ValidationError } from "../errors/domain-errors";
import { addMember } from "./project-members";
import { strongestRole, type Role } from "./roles";

// Projects (better-auth organizations) as the app shows them.

export type ProjectSummary = { id: string; name: string; slug: string; role: Role | null };

export async function listMyProjects(prisma: PrismaClient, userId: string): Promise<ProjectSummary[]> {
  const rows = await prisma.member.findMany({ where: { userId }, include: { organization: true }, orderBy: { createdAt: "asc" }, take: 200 });
  return rows.map((m) => ({ id: m.organization.id, name: m.organization.name, slug: m.organization.slug, role: strongestRole(m.role) }));
}

export async function listAllProjects(prisma: PrismaClient): Promise<ProjectSummary[]> {
  const rows = await prisma.organization.findMany({ orderBy: { createdAt: "asc" }, take: 200 });
  return rows.map((o) => ({ id: o.id, name: o.name, slug: o.slug, role: null }));
}

export function parseProjectName(value: unknown): string {
  const name = typeof value === "string" ? value.trim() : "";
  if (!name || name.length > 80) throw new ValidationError("A project needs a name of 1 to 80 characters", [{ field: "name", message: "1 to 80 characters" }]);
  return name;
}

function slugify(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "").slice(0, 40) || "project";
}

/** A new project with its creator as owner. */
export async function createProject(prisma: PrismaClient, nameInput: unknown, creator: { userId: string; email: string }): Promise<ProjectSummary> {
  const name = parseProjectName(nameInput);
  const id = randomUUID();
  const slug = `${slugify(name)}-${id.slice(0, 6)}`;
  await prisma.$transaction(async (tx) => {
    await tx.organization.create({ data: { id, name, slug, createdAt: new Date() } });
    await addMember(tx, id, creator.userId, creator.email, "owner", creator.email);
  });
  return { id, name, slug, role: "owner" };
}

export async function renameProject(prisma: PrismaClient, projectId: string, nameInput: unknown): Promise<ProjectSummary> {
  const name = parseProjectName(nameInput);
  const o = await prisma.organization.update({ where: { id: projectId }, data: { name } });
  return { id: o.id, name: o.name, slug: o.slug, role: null };
}
