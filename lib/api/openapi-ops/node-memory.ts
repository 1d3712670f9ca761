import {
  ZAddTurnInput,
  ZAddTurnResponse,
  ZNodeHistoryQuery,
  ZNodeHistoryResponse,
  ZNodeList,
  ZNodeMemory,
} from "../../node-memory/schemas";
import type { Op } from "./op";

// Node-level memory (Dify NodeTokenBufferMemory): one v1 JSON document per (app, conversation, node).
export const NODE_MEMORY_OPS: Op[] = [
  { method: "get", path: "/conversations/{id}/nodes", summary: "Nodes with memory in a conversation", response: ZNodeList, errors: [404], tag: "node-memory" },
  { method: "get", path: "/conversations/{id}/nodes/{node_id}", summary: "A node's memory document (format version 1) and its row version", response: ZNodeMemory, errors: [404, 422], tag: "node-memory" },
  { method: "delete", path: "/conversations/{id}/nodes/{node_id}", summary: "Clear a node's memory", status: 204, errors: [404, 422], tag: "node-memory" },
  { method: "post", path: "/conversations/{id}/nodes/{node_id}/turns", summary: "Append a user + assistant turn (optimistic versioning, retried on conflict)", body: ZAddTurnInput, response: ZAddTurnResponse, status: 201, errors: [400, 404, 409, 413, 422], tag: "node-memory" },
  { method: "get", path: "/conversations/{id}/nodes/{node_id}/history", summary: "A node's token-buffer history: thread by current_message_id, then the token limit", query: ZNodeHistoryQuery, response: ZNodeHistoryResponse, errors: [404, 422], tag: "node-memory" },
];
