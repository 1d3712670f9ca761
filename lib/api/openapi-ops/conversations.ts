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
import { page, type Op } from "./op";

export const CONVERSATION_OPS: Op[] = [
  { method: "get", path: "/conversations", summary: "List conversations (filters, cursor pagination)", query: ZConversationListQuery, response: page(ZConversation), errors: [422], tag: "conversations" },
  { method: "post", path: "/conversations", summary: "Create a conversation", body: ZConversationCreate, response: ZConversation, status: 201, errors: [400, 409, 413, 422], tag: "conversations" },
  { method: "get", path: "/conversations/facets", summary: "Distinct app and user ids", response: ZConversationFacets, tag: "conversations" },
  { method: "get", path: "/conversations/{id}", summary: "Get a conversation", response: ZConversation, errors: [404], tag: "conversations" },
  { method: "patch", path: "/conversations/{id}", summary: "Rename, archive or restore", body: ZConversationPatch, response: ZConversation, errors: [400, 404, 422], tag: "conversations" },
  { method: "delete", path: "/conversations/{id}", summary: "Soft-delete a conversation", status: 204, errors: [404], tag: "conversations" },
  { method: "get", path: "/conversations/{id}/messages", summary: "Every turn of every branch, oldest first", query: ZMessageListQuery, response: page(ZMessage), errors: [404, 422], tag: "conversations" },
  { method: "post", path: "/conversations/{id}/messages", summary: "Append one turn", body: ZTurnInput, response: ZMessage, status: 201, errors: [400, 404, 409, 413, 422], tag: "conversations" },
  { method: "post", path: "/conversations/{id}/messages/batch", summary: "Import up to 10 000 turns in one transaction", body: ZBatchInput, response: z.object({ data: z.union([z.array(ZMessage), z.array(z.object({ id: z.uuid(), created_at: z.iso.datetime() }))]).describe("Stored turns, oldest first: messages, or {id, created_at} with return=minimal."), count: z.number().int() }), status: 201, errors: [400, 404, 409, 413, 422], tag: "conversations" },
  { method: "get", path: "/conversations/{id}/thread", summary: "The thread by Dify's rules, newest first", query: ZThreadQuery, response: ZThreadResponse, errors: [404, 422], tag: "conversations" },
  { method: "get", path: "/conversations/{id}/history", summary: "Token-buffer history (Dify TokenBufferMemory)", query: ZHistoryQuery, response: ZHistoryResponse, errors: [404, 422], tag: "conversations" },
];
