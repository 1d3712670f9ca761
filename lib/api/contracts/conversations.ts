import { z } from "zod";
import {
  ZConversation,
  ZConversationCreate,
  ZConversationFacets,
  ZConversationListQuery,
  ZConversationPatch,
} from "../../conversations/schemas";
import {
  ZBatchInput,
  ZHistoryQuery,
  ZHistoryResponse,
  ZMessage,
  ZMessageListQuery,
  ZThreadQuery,
  ZThreadResponse,
  ZTurnInput,
} from "../../messages/schemas";
import { contract, page, pathId } from "../contract";

const tag = "conversations";
const ZConversationParams = z.object({ id: pathId("Conversation") });

export const listConversations = contract({
  tag, method: "GET", path: "/conversations", scope: "conversations:read",
  summary: "List conversations (filters, cursor pagination)",
  query: ZConversationListQuery, response: page(ZConversation), errors: [422],
});

export const createConversation = contract({
  tag, method: "POST", path: "/conversations", scope: "conversations:write",
  summary: "Create a conversation",
  body: ZConversationCreate, bodyLimit: 1024 * 1024, response: ZConversation, status: 201, errors: [409, 422],
});

export const conversationFacets = contract({
  tag, method: "GET", path: "/conversations/facets", scope: "conversations:read",
  summary: "Distinct app and user ids, for filter pickers",
  query: z.object({}).strict(), response: ZConversationFacets, errors: [422],
});

export const getConversation = contract({
  tag, method: "GET", path: "/conversations/{id}", scope: "conversations:read",
  summary: "Get a conversation",
  params: ZConversationParams, response: ZConversation, errors: [404],
});

export const updateConversation = contract({
  tag, method: "PATCH", path: "/conversations/{id}", scope: "conversations:write",
  summary: "Rename, archive or restore",
  params: ZConversationParams, body: ZConversationPatch, bodyLimit: 64 * 1024, response: ZConversation, errors: [404, 422],
});

export const deleteConversation = contract({
  tag, method: "DELETE", path: "/conversations/{id}", scope: "conversations:write",
  summary: "Soft-delete a conversation (its rows stay, hidden from every read)",
  params: ZConversationParams, status: 204, errors: [404],
});

export const listMessages = contract({
  tag, method: "GET", path: "/conversations/{id}/messages", scope: "conversations:read",
  summary: "Every turn of every branch, oldest first",
  params: ZConversationParams, query: ZMessageListQuery, response: page(ZMessage), errors: [404, 422],
});

export const appendMessage = contract({
  tag, method: "POST", path: "/conversations/{id}/messages", scope: "conversations:write",
  summary: "Append one turn",
  params: ZConversationParams, body: ZTurnInput, bodyLimit: 2 * 1024 * 1024, response: ZMessage, status: 201, errors: [404, 409, 422],
});

export const appendMessageBatch = contract({
  tag, method: "POST", path: "/conversations/{id}/messages/batch", scope: "conversations:write",
  summary: "Import up to 10 000 turns in one transaction",
  params: ZConversationParams, body: ZBatchInput,
  response: z.object({
    data: z
      .union([z.array(ZMessage), z.array(z.object({ id: z.uuid(), created_at: z.iso.datetime() }))])
      .describe("Stored turns, oldest first: messages, or {id, created_at} with return=minimal."),
    count: z.number().int(),
  }),
  status: 201, errors: [404, 409, 422],
});

export const getThread = contract({
  tag, method: "GET", path: "/conversations/{id}/thread", scope: "conversations:read",
  summary: "The thread by Dify's rules, newest first",
  params: ZConversationParams, query: ZThreadQuery, response: ZThreadResponse, errors: [404, 422],
});

export const getHistory = contract({
  tag, method: "GET", path: "/conversations/{id}/history", scope: "conversations:read",
  summary: "Token-buffer history (Dify TokenBufferMemory)",
  params: ZConversationParams, query: ZHistoryQuery, response: ZHistoryResponse, errors: [404, 422],
});

export const CONVERSATION_CONTRACTS = [
  listConversations, createConversation, conversationFacets, getConversation, updateConversation, deleteConversation,
  listMessages, appendMessage, appendMessageBatch, getThread, getHistory,
];
