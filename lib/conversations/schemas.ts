import { z } from "zod";
import { ZDateTime } from "../http/scalars";
import { ZUserIdInput } from "../http/user-id";

// Shared by the API (parsing) and the UI (forms, types). No server imports here.

export const CONVERSATION_STATUSES = ["active", "archived"] as const;
export const ZConversationStatus = z.enum(CONVERSATION_STATUSES);

const ZId = z.string().trim().min(1).max(200);

export const ZConversationCreate = z
  .object({
    id: z.uuid().optional().describe("Keep an existing id (imports); generated when omitted. Unique within the project (409 when this project has it); other projects' ids do not count."),
    app_id: ZId,
    end_user_id: ZUserIdInput.nullish(),
    name: z.string().max(500).default(""),
    mode: z.string().trim().min(1).max(50).default("chat"),
    model_config: z.record(z.string(), z.unknown()).nullish(),
    status: ZConversationStatus.default("active"),
    created_at: ZDateTime.optional(),
  })
  .strict();
export type ConversationCreate = z.infer<typeof ZConversationCreate>;

export const ZConversationPatch = z
  .object({
    name: z.string().max(500).optional(),
    status: ZConversationStatus.optional(),
  })
  .strict()
  .refine((v) => v.name !== undefined || v.status !== undefined, { message: "give name or status" });
export type ConversationPatch = z.infer<typeof ZConversationPatch>;

export const ZCursorLimit = {
  cursor: z.string().max(500).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
};

export const ZConversationListQuery = z
  .object({
    app_id: ZId.optional(),
    user_id: ZId.optional(),
    status: ZConversationStatus.optional(),
    q: z.string().trim().max(200).optional(),
    ...ZCursorLimit,
  })
  .strict();
export type ConversationListQuery = z.infer<typeof ZConversationListQuery>;

/** A conversation as the API returns it. */
export const ZConversation = z.object({
  id: z.string(),
  app_id: z.string(),
  end_user_id: z.string().nullable(),
  name: z.string(),
  mode: z.string(),
  model_config: z.record(z.string(), z.unknown()).nullable(),
  status: ZConversationStatus,
  turn_count: z.number().int(),
  branch_count: z.number().int().describe("Leaves of the message tree: 1 for a linear conversation."),
  token_count: z.number().int().describe("o200k_base tokens of every query and answer."),
  created_at: z.string(),
  updated_at: z.string(),
});
export type Conversation = z.infer<typeof ZConversation>;

export const ZConversationFacets = z.object({
  apps: z.array(z.string()),
  users: z.array(z.string()),
});
