import { z } from "zod";
import {
  ZAddTurnInput,
  ZAddTurnResponse,
  ZNodeHistoryQuery,
  ZNodeHistoryResponse,
  ZNodeList,
  ZNodeMemory,
} from "../../node-memory/schemas";
import { contract, pathId } from "../contract";

// Node-level memory (Dify NodeTokenBufferMemory): one v1 JSON document per (app, conversation, node).
const tag = "node-memory";
const ZConversationParams = z.object({ id: pathId("Conversation") });
// node_id is checked by the domain (parseNodeId): percent-decoded, 1..200 of [A-Za-z0-9_.:-].
const ZNodeParams = ZConversationParams.extend({ node_id: z.string().describe("1..200 of [A-Za-z0-9_.:-]") });

export const listNodes = contract({
  tag, method: "GET", path: "/conversations/{id}/nodes", scope: "conversations:read",
  summary: "Nodes with memory in a conversation",
  params: ZConversationParams, response: ZNodeList, errors: [404],
});

export const getNodeMemory = contract({
  tag, method: "GET", path: "/conversations/{id}/nodes/{node_id}", scope: "conversations:read",
  summary: "A node's memory document (format version 1) and its row version",
  params: ZNodeParams, response: ZNodeMemory, errors: [404, 422],
});

export const clearNodeMemory = contract({
  tag, method: "DELETE", path: "/conversations/{id}/nodes/{node_id}", scope: "conversations:write",
  summary: "Clear a node's memory (Dify's clear(): 204 whether or not the node had memory)",
  params: ZNodeParams, status: 204, errors: [404, 422],
});

export const addNodeTurn = contract({
  tag, method: "POST", path: "/conversations/{id}/nodes/{node_id}/turns", scope: "conversations:write",
  summary: "Append a user + assistant turn (optimistic versioning, retried on conflict)",
  params: ZNodeParams, body: ZAddTurnInput, bodyLimit: 4 * 1024 * 1024, response: ZAddTurnResponse, status: 201, errors: [404, 409, 422],
});

export const getNodeHistory = contract({
  tag, method: "GET", path: "/conversations/{id}/nodes/{node_id}/history", scope: "conversations:read",
  summary: "A node's token-buffer history: thread by current_message_id, then the token limit",
  params: ZNodeParams, query: ZNodeHistoryQuery, response: ZNodeHistoryResponse, errors: [404, 422],
});

export const NODE_MEMORY_CONTRACTS = [listNodes, getNodeMemory, clearNodeMemory, addNodeTurn, getNodeHistory];
