import { z } from "zod";
import { ZContextMemory } from "../context/schemas";
import { ZStrategy } from "../strategies/schemas";
import { ZDateTime } from "../http/scalars";

// Agent profiles (issue 22, part 2): the settings an agent runs with, per app_id. Every
// change is a new version with the instant it took effect. Client-safe.

/** An app id as conversations carry it (any non-empty text up to 200 characters). */
export const ZAppId = z.string().trim().min(1, "1 to 200 characters").max(200, "1 to 200 characters");

/** What a profile version holds: the fields of POST /context that belong to the agent, not to the request. */
export const ZProfileSettings = z
  .object({
    model: z.string().trim().min(1).max(100).default("gpt-4o"),
    strategy: ZStrategy,
    memory: ZContextMemory.default({ enabled: true, k: 5, format: "user_memory" }),
    system_prompt: z.string().max(200_000).default(""),
    reserved_output_tokens: z.number().int().min(0).max(10_000_000).default(1024),
  })
  .strict();
export type ProfileSettings = z.infer<typeof ZProfileSettings>;

export const ZProfileVersionCreate = z
  .object({
    settings: ZProfileSettings,
    effective_from: ZDateTime.optional()
      .describe("When this version took (or takes) effect; default now. Not before the newest version's: the history only grows forward."),
    note: z.string().max(2000).optional().describe("Why it changed."),
  })
  .strict();

export const ZProfileVersion = z.object({
  app_id: z.string(),
  version: z.number().int(),
  effective_from: z.string(),
  settings: ZProfileSettings,
  note: z.string().nullable(),
  created_by: z.string().nullable(),
  created_at: z.string(),
});
export type ProfileVersion = z.infer<typeof ZProfileVersion>;

const ZCurrent = ZProfileVersion.nullable().describe("The version in force now: the newest whose effective_from has passed (null while every version lies ahead).");

export const ZProfileSummary = z.object({
  app_id: z.string(),
  version_count: z.number().int(),
  latest_version: z.number().int(),
  current: ZCurrent,
});

export const ZProfileList = z.object({ data: z.array(ZProfileSummary) });

export const ZProfileHistory = z.object({
  app_id: z.string(),
  current: ZCurrent,
  versions: z.array(ZProfileVersion).describe("Newest version first."),
});
