import { z } from "zod";
import { ZDateTime } from "../http/scalars";

// Memory incidents (issue 38): the answers of /api/v1/incidents. Client-safe (the inbox page
// and the MCP tool read these names).

export const INCIDENT_KINDS = ["missed_memory", "restated_memory", "stale_memory", "dropped_reference", "over_context_window"] as const;
export type IncidentKind = (typeof INCIDENT_KINDS)[number];
export const INCIDENT_STATUSES = ["open", "acknowledged", "resolved", "false_positive"] as const;
export type IncidentStatus = (typeof INCIDENT_STATUSES)[number];
export const INCIDENT_SEVERITIES = ["high", "medium", "low"] as const;
export type IncidentSeverity = (typeof INCIDENT_SEVERITIES)[number];

/** The kinds whose incident names a memory (an eval case can expect it; false_positive suppresses the pair). */
export const MEMORY_KINDS: readonly IncidentKind[] = ["missed_memory", "restated_memory", "stale_memory"];

export const ZIncidentKind = z.enum(INCIDENT_KINDS);
export const ZIncidentStatus = z.enum(INCIDENT_STATUSES);
export const ZIncidentSeverity = z.enum(INCIDENT_SEVERITIES);

export const ZIncident = z.object({
  id: z.string(),
  kind: ZIncidentKind,
  severity: ZIncidentSeverity,
  status: ZIncidentStatus,
  conversation_id: z.string(),
  message_id: z.string(),
  user_id: z.string().nullable(),
  app_id: z.string().nullable(),
  memory_ids: z.array(z.string()).describe("The memories the incident is about (missed, restated, stale); empty for the others."),
  summary: z.string().describe("One sentence in plain words."),
  evidence: z
    .record(z.string(), z.unknown())
    .describe("What fired the rule, per kind (docs/incidents.md): memory ids with content, rank and k, created_at, the answer's absence phrase, the correcting turn, the dropped turn, token counts."),
  turn_at: z.string().describe("When the turn happened."),
  detected_at: z.string(),
  note: z.string().nullable(),
  status_changed_by: z.string().nullable(),
  status_changed_at: z.string().nullable(),
});
export type Incident = z.infer<typeof ZIncident>;

// kind, status and severity are read by lib/incidents (checkFilters), so an unknown value is a
// 400 invalid_filter naming the field and the values it takes; a comma separates several.
const listOf = (what: string, values: readonly string[]) =>
  z.string().max(200).optional().describe(`${what}: one of ${values.join(", ")}; several separated by commas. 400 invalid_filter for another value.`);

export const ZIncidentListQuery = z
  .object({
    kind: listOf("Kind", INCIDENT_KINDS),
    status: listOf("Status", INCIDENT_STATUSES),
    severity: listOf("Severity", INCIDENT_SEVERITIES),
    app_id: z.string().min(1).max(200).optional(),
    user_id: z.string().min(1).max(255).optional(),
    conversation_id: z.uuid().optional(),
    message_id: z.uuid().optional().describe("One turn's incidents (the conversation page's marks)."),
    limit: z.coerce.number().int().min(1).max(200).default(50),
    cursor: z.string().max(500).optional(),
  })
  .strict();
export type IncidentListQuery = z.infer<typeof ZIncidentListQuery>;

export const ZIncidentPatch = z
  .object({
    status: ZIncidentStatus.describe("false_positive also suppresses this rule for this memory and end user (the rules skip the pair from then on)."),
    note: z.string().trim().max(5000).nullish().describe("Why (kept with the incident; null clears it)."),
  })
  .strict();
export type IncidentPatch = z.infer<typeof ZIncidentPatch>;

export const ZEvalCaseFromIncident = z.object({ set_id: z.uuid().describe("The eval set to add the case to.") }).strict();

export const ZScanCreate = z
  .object({
    conversation_id: z.uuid().optional().describe("Scan this conversation only (404 when the project has none of that id); else every conversation."),
    since: ZDateTime.optional().describe("Only turns at or after this instant."),
  })
  .strict();
export type ScanCreate = z.infer<typeof ZScanCreate>;

export const ZIncidentScan = z.object({
  id: z.string(),
  status: z.enum(["running", "done", "failed"]),
  conversation_id: z.string().nullable(),
  since: z.string().nullable(),
  conversations_total: z.number().int(),
  conversations_done: z.number().int(),
  turns_scanned: z.number().int(),
  incidents_found: z.number().int().describe("New incidents this scan stored (those found before are kept as they are)."),
  progress: z.number().describe("conversations_done / conversations_total (1 when done)."),
  error: z.string().nullable(),
  created_by: z.string().nullable(),
  started_at: z.string(),
  finished_at: z.string().nullable(),
});
export type IncidentScan = z.infer<typeof ZIncidentScan>;

const ZDay = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, "a day, YYYY-MM-DD");
export const ZIncidentSummaryQuery = z
  .object({
    from: ZDay.optional().describe("First day (UTC) of the chart; default 29 days before `to`."),
    to: ZDay.optional().describe("Last day (UTC) of the chart; default today."),
    app_id: z.string().min(1).max(200).optional(),
  })
  .strict();
export type IncidentSummaryQuery = z.infer<typeof ZIncidentSummaryQuery>;

export const ZIncidentSummary = z.object({
  from: z.string(),
  to: z.string(),
  days: z.array(z.object({ day: z.string(), kind: ZIncidentKind, count: z.number().int() })).describe("Incidents per kind per day of their turn (UTC); days and kinds without any are left out."),
  totals: z.array(z.object({ kind: ZIncidentKind, count: z.number().int(), open: z.number().int() })).describe("Over the range, every kind."),
  open_high: z.number().int().describe("Open high-severity incidents of the project, whatever the range (the navigation badge)."),
  open: z.number().int().describe("Open incidents of the project, whatever the range."),
  precision: z
    .array(
      z.object({
        kind: ZIncidentKind,
        judged: z.number().int().describe("Incidents people marked acknowledged, resolved or false_positive."),
        confirmed: z.number().int().describe("Of those, acknowledged or resolved."),
        false_positive: z.number().int(),
        precision: z.number().nullable().describe("confirmed / judged; null when none was judged."),
      }),
    )
    .describe("Precision per kind as people judged it, over every incident of the project."),
});
export type IncidentSummary = z.infer<typeof ZIncidentSummary>;
