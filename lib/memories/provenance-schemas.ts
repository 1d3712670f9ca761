import { z } from "zod";
import { ZMemoryStatus, ZMemoryType } from "./schemas";

// Where a memory came from, and which memories a conversation produced and was given.
// Client code imports the types only (z.infer), never these values.

const ZMemoryRef = z.object({
  id: z.string(),
  memory_type: ZMemoryType,
  content: z.string(),
  status: ZMemoryStatus,
});

export const ZMemoryOrigin = z.object({
  conversation: z
    .object({ id: z.string(), name: z.string(), deleted: z.boolean() })
    .nullable()
    .describe("The conversation it was extracted from or saved for (source_session_id); deleted conversations are named, not linked."),
  turn: z
    .object({ id: z.string(), query: z.string().describe("The turn's query, first 200 characters.") })
    .nullable()
    .describe("The turn it was extracted from (set when an extracted candidate is approved)."),
  import: z
    .object({ job_id: z.string().nullable(), source: z.string(), external_id: z.string(), label: z.string().nullable(), created_at: z.string() })
    .nullable()
    .describe("The import that wrote it: the source format, the source's own id, the job."),
  merged_from: z.array(ZMemoryRef).describe("Memories merged into this one (live merged_into relations)."),
  derived_from: z.array(ZMemoryRef).describe("Memories this one was compressed from (derived_from relations)."),
  created: z
    .object({ event_type: z.string(), actor: z.string(), reason: z.string().nullable(), created_at: z.string() })
    .nullable()
    .describe("The oldest history event: how the row came to be (create, import, merge, compress)."),
});
export type MemoryOrigin = z.infer<typeof ZMemoryOrigin>;

export const ZConversationMemoriesQuery = z
  .object({
    retrievals: z.coerce.number().int().min(0).max(200).default(50).describe("Newest retrievals to list (0-200)."),
    include_dry_runs: z.enum(["true", "false"]).default("false").describe("Also list dry runs (the playground's and the inspector's)."),
  })
  .strict();

export const ZConversationMemories = z.object({
  extracted: z
    .array(
      ZMemoryRef.extend({
        source_message_id: z.string().nullable(),
        importance_score: z.number(),
        created_at: z.string(),
      }),
    )
    .describe("Memories whose source_session_id is this conversation, newest first (at most 200)."),
  retrievals: z
    .array(
      z.object({
        id: z.string(),
        query: z.string(),
        user_id: z.string(),
        dry_run: z.boolean(),
        k: z.number().int(),
        latency_ms: z.number(),
        created_at: z.string(),
        hits: z.array(
          z.object({
            rank: z.number().int(),
            memory: ZMemoryRef.nullable().describe("Null when the memory was deleted since."),
            memory_id: z.string(),
            score: z.number(),
            cosine: z.number(),
            time_decay: z.number(),
            importance: z.number(),
          }),
        ),
      }),
    )
    .describe("Retrievals made for this conversation (conversation_id), newest first, each with its hits and scores."),
});
export type ConversationMemories = z.infer<typeof ZConversationMemories>;
