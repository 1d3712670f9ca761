import { z } from "zod";
import { ZConversationMemories, ZConversationMemoriesQuery, ZMemoryOrigin } from "../../memories/provenance-schemas";
import { contract, pathId } from "../contract";

export const memoryOrigin = contract({
  tag: "memories", method: "GET", path: "/memories/{id}/origin", scope: "memories:read",
  summary: "Where a memory came from: conversation and turn, import, merge and compression sources, first event",
  params: z.object({ id: pathId("Memory") }), response: ZMemoryOrigin, errors: [404],
});

export const conversationMemories = contract({
  tag: "conversations", method: "GET", path: "/conversations/{id}/memories", scope: "memories:read",
  summary: "Memories extracted from a conversation and the retrievals made for it, with each hit's scores",
  params: z.object({ id: pathId("Conversation") }), query: ZConversationMemoriesQuery, response: ZConversationMemories, errors: [404, 422],
});

export const PROVENANCE_CONTRACTS = [memoryOrigin, conversationMemories];
