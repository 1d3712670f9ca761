import "server-only";
import { Prisma, type PrismaClient } from "../generated/prisma/client";
import { conflict, notFound } from "../errors/domain-errors";
import { decodeCursor, encodeCursor, ZCursorTime, ZCursorUuid } from "../pagination/cursor";
import type { ConversationCreate, ConversationListQuery, ConversationPatch } from "./schemas";
import { serializeConversation } from "./serialize-conversation";

// Every function takes the project it acts for: a conversation of another project is not found.
// Ids are unique per project (the primary key is (project_id, id)): a client-chosen id that
// another project holds is as free here as one nobody holds.

export async function createConversation(prisma: PrismaClient, projectId: string, input: ConversationCreate) {
  try {
    const row = await prisma.conversation.create({
      data: {
        id: input.id,
        projectId,
        appId: input.app_id,
        endUserId: input.end_user_id ?? null,
        name: input.name,
        mode: input.mode,
        modelConfig: (input.model_config ?? Prisma.DbNull) as Prisma.InputJsonValue,
        status: input.status,
        ...(input.created_at ? { createdAt: new Date(input.created_at), updatedAt: new Date(input.created_at) } : {}),
      },
    });
    return serializeConversation(row);
  } catch (e) {
    if (e instanceof Prisma.PrismaClientKnownRequestError && e.code === "P2002") {
      throw conflict(`Conversation ${input.id} already exists`, [{ field: "id", message: "already exists" }]);
    }
    throw e;
  }
}

/** A live (not deleted) conversation, or a 404. */
export async function requireConversation(prisma: PrismaClient, projectId: string, id: string) {
  const row = await prisma.conversation.findFirst({ where: { id, projectId, deletedAt: null } });
  if (!row) throw notFound("Conversation", id);
  return row;
}

export async function getConversation(prisma: PrismaClient, projectId: string, id: string) {
  return serializeConversation(await requireConversation(prisma, projectId, id));
}

export async function updateConversation(prisma: PrismaClient, projectId: string, id: string, patch: ConversationPatch) {
  await requireConversation(prisma, projectId, id);
  const row = await prisma.conversation.update({
    where: { projectId_id: { projectId, id } },
    data: { ...(patch.name !== undefined ? { name: patch.name } : {}), ...(patch.status ? { status: patch.status } : {}) },
  });
  return serializeConversation(row);
}

/** Soft delete: the row and its messages stay, hidden from every read. */
export async function deleteConversation(prisma: PrismaClient, projectId: string, id: string) {
  await requireConversation(prisma, projectId, id);
  await prisma.conversation.update({ where: { projectId_id: { projectId, id } }, data: { deletedAt: new Date() } });
}

export async function listConversations(prisma: PrismaClient, projectId: string, q: ConversationListQuery) {
  const after = decodeCursor(q.cursor, "conversations", [ZCursorTime, ZCursorUuid]);
  const where: Prisma.ConversationWhereInput = {
    projectId,
    deletedAt: null,
    ...(q.app_id ? { appId: q.app_id } : {}),
    ...(q.user_id ? { endUserId: q.user_id } : {}),
    ...(q.status ? { status: q.status } : {}),
  };
  if (q.q) {
    const isUuid = /^[0-9a-f-]{36}$/i.test(q.q);
    where.OR = [
      { name: { contains: q.q, mode: "insensitive" } },
      { appId: { contains: q.q, mode: "insensitive" } },
      { endUserId: { contains: q.q, mode: "insensitive" } },
      ...(isUuid ? [{ id: q.q.toLowerCase() }] : []),
    ];
  }
  if (after) {
    const [ts, id] = after as [string, string];
    const at = new Date(ts);
    where.AND = [{ OR: [{ updatedAt: { lt: at } }, { updatedAt: at, id: { lt: id } }] }];
  }
  const rows = await prisma.conversation.findMany({
    where,
    orderBy: [{ updatedAt: "desc" }, { id: "desc" }],
    take: q.limit + 1,
  });
  const page = rows.slice(0, q.limit);
  const last = page[page.length - 1];
  return {
    data: page.map(serializeConversation),
    next_cursor: rows.length > q.limit && last ? encodeCursor("conversations", [last.updatedAt.toISOString(), last.id]) : null,
  };
}

export async function conversationFacets(prisma: PrismaClient, projectId: string) {
  const [apps, users] = await Promise.all([
    prisma.conversation.findMany({ where: { projectId, deletedAt: null }, distinct: ["appId"], select: { appId: true }, orderBy: { appId: "asc" }, take: 500 }),
    prisma.conversation.findMany({
      where: { projectId, deletedAt: null, endUserId: { not: null } },
      distinct: ["endUserId"],
      select: { endUserId: true },
      orderBy: { endUserId: "asc" },
      take: 500,
    }),
  ]);
  return { apps: apps.map((a) => a.appId), users: users.map((u) => u.endUserId!) };
}
