import { z } from "zod";

// Live capture over OTLP (issue 25, part 2): what POST /traces answers, the captured turns
// of a conversation, and "sent vs modelled" for one of them. Client-safe.

const ZIngestCounts = z.object({
  spans: z.number().int(),
  awaiting_logs: z.number().int().describe("Chat spans without content kept (an hour at most) until their GenAI log events arrive on POST /logs."),
  turns_created: z.number().int(),
  duplicates: z.number().int().describe("Spans already stored (a retried export): the same span twice is one turn."),
  ignored: z.number().int().describe("Spans that are not GenAI chat spans (HTTP, embeddings, tool executions, agent spans...)."),
  ignored_by_kind: z.record(z.string(), z.number().int()).describe("Ignored spans by gen_ai.operation.name (or 'not a GenAI span')."),
  rejected: z.array(z.object({ field: z.string(), message: z.string() })).describe("Chat spans whose content could not be read, each with the field that is wrong."),
  conversation_ids: z.array(z.string()),
});

/**
 * The JSON answer as the contract documents it. OTLP's own field, `partialSuccess`
 * ({rejectedSpans: int64 as a decimal string, errorMessage}), is spelled as OTLP/JSON
 * requires (lowerCamelCase, which the rest of the API never uses), so the schema leaves it
 * to the description and lets it through.
 */
export const ZTraceExportResult = z
  .object({ memscope: ZIngestCounts })
  .loose()
  .describe(
    "OTLP's ExportTraceServiceResponse. `partialSuccess` ({rejectedSpans, errorMessage}, OTLP/JSON spelling) is present when spans were ignored or rejected (rejectedSpans counts them), absent when every span became a turn; `memscope` holds the counts.",
  );
export type TraceExportResult = z.infer<typeof ZTraceExportResult> & { partialSuccess?: { rejectedSpans: string; errorMessage: string } };

const ZLogIngestCounts = z.object({
  log_records: z.number().int(),
  awaiting_span: z.number().int().describe("GenAI events kept (an hour at most) until their chat span arrives on POST /traces."),
  turns_created: z.number().int().describe("Turns completed by these events (their span had arrived before)."),
  duplicates: z.number().int().describe("Events already received, or of a span already captured."),
  ignored: z.number().int().describe("Log records that are not GenAI message events."),
  ignored_by_kind: z.record(z.string(), z.number().int()),
  rejected: z.array(z.object({ field: z.string(), message: z.string() })).describe("GenAI events that cannot be used (no span ids, unreadable messages), each with the field that is wrong."),
  conversation_ids: z.array(z.string()),
});

export const ZLogsExportResult = z
  .object({ memscope: ZLogIngestCounts })
  .loose()
  .describe(
    "OTLP's ExportLogsServiceResponse. `partialSuccess` ({rejectedLogRecords, errorMessage}, OTLP/JSON spelling) is present when records were ignored or rejected; `memscope` holds the counts.",
  );
export type LogsExportResult = z.infer<typeof ZLogsExportResult> & { partialSuccess?: { rejectedLogRecords: string; errorMessage: string } };

export const ZMetricsExportResult = z
  .object({ memscope: z.object({ data_points: z.number().int().describe("Data points received; Memscope keeps none.") }) })
  .loose()
  .describe("OTLP's ExportMetricsServiceResponse: `partialSuccess` ({rejectedDataPoints, errorMessage}) counts every data point, since none is kept.");
export type MetricsExportResult = z.infer<typeof ZMetricsExportResult> & { partialSuccess?: { rejectedDataPoints: string; errorMessage: string } };

export const ZCapturedTurn = z.object({
  message_id: z.string(),
  trace_id: z.string(),
  span_id: z.string(),
  operation: z.string(),
  provider: z.string().nullable(),
  request_model: z.string().nullable(),
  message_form: z
    .enum(["attributes", "events", "logs", "ai_sdk"])
    .describe(
      "attributes: gen_ai.input.messages / gen_ai.output.messages; events: the older gen_ai.*.message span events; logs: GenAI log events (POST /logs) joined to the span; ai_sdk: the Vercel AI SDK's ai.prompt.messages / ai.response.*",
    ),
  input_message_count: z.number().int(),
  started_at: z.string(),
});
export type CapturedTurn = z.infer<typeof ZCapturedTurn>;

export const ZCapturedTurnList = z.object({ data: z.array(ZCapturedTurn) });

/** A prompt message reduced to what is compared: its role and its text. */
export const ZPromptLine = z.object({
  role: z.string(),
  content: z.string(),
  section: z.enum(["system", "memories", "history", "query", "temporary"]),
});
export type PromptLine = z.infer<typeof ZPromptLine>;

export const ZHistoryRow = z.object({
  status: z.enum(["both", "sent_only", "modelled_only"]),
  role: z.string(),
  content: z.string(),
  sent_index: z.number().int().nullable().describe("Position among the sent prompt's messages"),
  modelled_index: z.number().int().nullable().describe("Position among the modelled prompt's messages"),
});
export type HistoryRow = z.infer<typeof ZHistoryRow>;

export const ZPromptDiff = z.object({
  summary: z.string().describe("One sentence: 'your agent keeps 40 messages, your profile says 20'."),
  history: z.object({
    sent: z.number().int().describe("History messages the agent sent (between its system messages and the new input)"),
    modelled: z.number().int().describe("History messages the profile's strategy keeps"),
    both: z.number().int(),
    sent_only: z.number().int(),
    modelled_only: z.number().int(),
  }),
  system_matches: z.boolean().describe("The agent's system text equals the profile's (system prompt and memories)"),
  query_matches: z.boolean(),
  rows: z.array(ZHistoryRow).describe("The two histories aligned (longest common subsequence by role and text), oldest first"),
});
export type PromptDiff = z.infer<typeof ZPromptDiff>;

export const ZSentVsModelled = z.object({
  conversation_id: z.string(),
  message_id: z.string(),
  app_id: z.string(),
  captured: z.object({
    trace_id: z.string(),
    span_id: z.string(),
    operation: z.string(),
    provider: z.string().nullable(),
    request_model: z.string().nullable(),
    message_form: z.enum(["attributes", "events", "logs", "ai_sdk"]),
    started_at: z.string(),
    system_instructions: z.unknown().nullable().describe("gen_ai.system_instructions as sent"),
    input_messages: z.array(z.unknown()).describe("gen_ai.input.messages exactly as sent (the events form in the same shape)"),
    output_messages: z.array(z.unknown()),
  }),
  sent: z.object({ messages: z.array(ZPromptLine), tokens: z.number().int() }),
  modelled: z.object({
    profile: z.object({
      source: z.enum(["profile", "default"]),
      app_id: z.string(),
      version: z.number().int().nullable(),
      effective_from: z.string().nullable(),
    }),
    strategy: z.record(z.string(), z.unknown()),
    model: z.string(),
    messages: z.array(ZPromptLine),
    tokens: z.number().int(),
    memories: z.enum(["retrieved", "off", "no_end_user"]).describe("no_end_user: the conversation has no end user, so no memories were retrieved"),
  }),
  encoding: z.string(),
  diff: ZPromptDiff,
});
export type SentVsModelled = z.infer<typeof ZSentVsModelled>;
