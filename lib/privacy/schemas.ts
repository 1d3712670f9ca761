import { z } from "zod";
import { ZPathUserId } from "../memories/schemas";
import { EXPORT_FORMAT } from "./export-user";
import { ZDateTime } from "../http/scalars";
import { ZUserIdInput } from "../http/user-id";

// Request and answer shapes of the privacy routes (lib/api/contracts/privacy.ts).

const ZCounts = z.record(z.string(), z.number().int()).describe("Rows per table.");

export const ZUserExport = z.object({
  format: z.literal(EXPORT_FORMAT),
  // An export is version 2 (lib/privacy/export-user.ts); an import also reads version 1.
  version: z.union([z.literal(1), z.literal(2)]),
  user_id: ZUserIdInput,
  exported_at: ZDateTime,
  tables: z
    .record(z.string(), z.array(z.record(z.string(), z.unknown())))
    .describe("Table name -> the user's rows, each as stored (snake_case columns, ids and times kept), without project_id."),
});

export const ZUserImported = z.object({ user_id: z.string(), counts: ZCounts });

const ZProbes = z.object({
  ids: z.object({ checked: z.number().int(), found: z.number().int() }).describe("Erased memory, conversation and turn ids still present (each would answer 404 when absent)."),
  search: z.object({ checked: z.number().int(), found: z.number().int() }).describe("Searches with erased memories' texts; found = erased memories returned."),
  scan: z
    .object({
      columns: z.number().int(),
      strings: z.number().int(),
      found: z.number().int(),
      where: z.array(z.object({ table: z.string(), column: z.string(), rows: z.number().int() })),
      by_string: z
        .array(
          z.object({
            probe: z.enum(["user id", "memory text", "turn text", "erased string"]).describe("What the probe string is (never the string itself)."),
            matched_as: z.enum(["token", "substring"]).describe("token: a whole value or token (the id `conv` is not found in `conv-2`); substring: anywhere (text erasure)."),
            found: z.number().int(),
            where: z.array(z.object({ table: z.string(), column: z.string(), rows: z.number().int() })),
          }),
        )
        .describe("Per probe string, in order: what it is, how it was matched, where it was found."),
    })
    .describe("Every text and JSON column of the project scanned for the probe strings."),
  passed: z.boolean(),
});

export const ZPhysical = z.object({
  tables: z.array(z.string()),
  checkpoint: z.boolean(),
  outside_reach: z.array(z.string()),
  warnings: z.array(z.string()),
});

export const ZReceipt = z.object({
  receipt_id: z.uuid(),
  kind: z.enum(["user", "text"]),
  subject: z.string().nullable().describe("The user as sha256 of a project salt and the id; null for a project-wide text erasure."),
  strings: z.number().int().nullable(),
  started_at: z.iso.datetime(),
  finished_at: z.iso.datetime(),
  by: z.string(),
  resumed: z.boolean(),
  counts: ZCounts,
  total: z.number().int(),
  physical: ZPhysical.nullable(),
  probes: ZProbes,
  outside_reach: z.array(z.string()),
  stages_ms: z
    .record(z.string(), z.number())
    .optional()
    .describe("User erasure: milliseconds per stage (each table's deletes, the probes, ...), to see where the time went."),
});

export const ZEraseUserBody = z
  .object({
    dry_run: z.boolean().default(false).describe("Only count what would go, per table."),
    confirm: z.boolean().default(false).describe("Must be true to erase (not needed for a dry run)."),
    physical: z.boolean().default(false).describe("Also rewrite the touched tables so the erased data leaves the database files."),
  })
  .strict();

export const ZEraseUserAnswer = z.object({
  dry_run: z.boolean(),
  counts: ZCounts,
  total: z.number().int(),
  receipt: ZReceipt.nullable(),
});

const ZEraseString = z
  .string()
  .min(3, "at least 3 characters")
  .max(1000)
  .refine((s) => !"[erased]".includes(s), "cannot be part of the replacement text [erased]");

export const ZEraseTextBody = z
  .object({
    strings: z.array(ZEraseString).min(1).max(50).describe("Exact strings to replace by [erased] (case-sensitive)."),
    user_id: ZPathUserId.optional().describe("Only this user's rows; without it, the whole project."),
    dry_run: z.boolean().default(false),
    confirm: z.boolean().default(false),
    physical: z.boolean().default(false),
  })
  .strict();

export const ZTextMatch = z.object({
  table: z.string(),
  column: z.string(),
  string_index: z.number().int(),
  rows: z.number().int(),
  replaced: z.boolean().describe("False for identifier columns and tables text erasure leaves alone."),
});

export const ZEraseTextAnswer = z.object({
  dry_run: z.boolean(),
  matches: z.array(ZTextMatch),
  rows: ZCounts,
  memories_reembedded: z.number().int(),
  receipt: ZReceipt.nullable(),
});
