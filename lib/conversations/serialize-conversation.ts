import type { Conversation as Row } from "../generated/prisma/client";
import type { Conversation } from "./schemas";

export function serializeConversation(c: Row): Conversation {
  return {
    id: c.id,
    app_id: c.appId,
    end_user_id: c.endUserId,
    name: c.name,
    mode: c.mode,
    model_config: (c.modelConfig as Record<string, unknown> | null) ?? null,
    status: c.status,
    turn_count: c.turnCount,
    branch_count: c.leafCount,
    token_count: c.tokenCount,
    created_at: c.createdAt.toISOString(),
    updated_at: c.updatedAt.toISOString(),
  };
}
