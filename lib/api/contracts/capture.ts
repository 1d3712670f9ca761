import { z } from "zod";
import { ZCapturedTurnList, ZLogsExportResult, ZMetricsExportResult, ZSentVsModelled, ZTraceExportResult } from "../../capture/schemas";
import { contract, pathId } from "../contract";

// Live capture over OpenTelemetry (issue 25, part 2). POST /traces is an OTLP/HTTP
// receiver: an exporter pointed at OTEL_EXPORTER_OTLP_ENDPOINT=<memscope>/api posts here
// (it appends /v1/traces). Its body is OTLP, not a JSON document of Memscope's: the
// handler reads it itself (lib/capture/read-otlp-body.ts), so the contract declares none.

const tag = "capture";

export const exportTraces = contract({
  tag, method: "POST", path: "/traces", scope: "conversations:write",
  summary: "OTLP/HTTP trace receiver: GenAI chat spans become turns of their conversation, with the exact input messages the agent sent",
  description:
    "Body: an OTLP ExportTraceServiceRequest, binary protobuf (Content-Type: application/x-protobuf) or OTLP/JSON (application/json), optionally gzip (Content-Encoding: gzip); at most 32 MiB on the wire and 64 MiB decompressed (a gzip body past 4 MiB inflated at most 200 times its size), 10 000 spans; over a limit: 413, which exporters do not retry. " +
    "A span with more than 1 000 attributes or events, times outside fixed64, message JSON nested deeper than 64 levels or over 1 MiB, or a user id no route can address is rejected alone (partialSuccess names the field); the rest of the batch is stored. " +
    "Spans whose gen_ai.operation.name is chat, generate_content or text_completion become turns: the conversation is gen_ai.conversation.id (one conversation per trace without it), the app_id the resource's service.name (or memscope.app_id), the end user user.id. " +
    "Input messages are read from gen_ai.input.messages / gen_ai.output.messages / gen_ai.system_instructions (structured or JSON text), or from the older gen_ai.*.message and gen_ai.choice span events. " +
    "The same span sent twice is one turn. Other spans are ignored and, with chat spans whose content cannot be read, counted in partialSuccess.rejectedSpans. " +
    "The answer is an ExportTraceServiceResponse in the request's encoding (JSON answers add `memscope`, the counts). A body that is not OTLP is a 400 naming the field.",
  // The handler reads the body itself, so its size (413) and media type (415) answers are its own, not withApi's.
  response: ZTraceExportResult, errors: [413, 415],
});

export const exportLogs = contract({
  tag, method: "POST", path: "/logs", scope: "conversations:write",
  summary: "OTLP/HTTP log receiver: GenAI log events (message content) joined to their chat span by trace and span id",
  description:
    "Body: an OTLP ExportLogsServiceRequest, protobuf or JSON, optionally gzip, with the limits of POST /traces. " +
    "Instrumentations such as @opentelemetry/instrumentation-openai send a chat span without content and the messages as log records: gen_ai.system.message, gen_ai.user.message, gen_ai.assistant.message, gen_ai.tool.message and gen_ai.choice (body {content, tool_calls, id} / {index, finish_reason, message}), or gen_ai.client.inference.operation.details (attributes gen_ai.input.messages, gen_ai.output.messages, gen_ai.system_instructions). " +
    "Whichever of span and events arrives first waits (an hour at most); the request that brings the other half writes the turn, in one transaction. " +
    "Other records are ignored and, with GenAI events that cannot be used (no span ids), counted in partialSuccess.rejectedLogRecords. A body that is not OTLP is a 400 naming the field.",
  response: ZLogsExportResult, errors: [413, 415],
});

export const exportMetrics = contract({
  tag, method: "POST", path: "/metrics", scope: "conversations:write",
  summary: "OTLP/HTTP metric receiver that keeps nothing: answers 200 with every data point counted as rejected",
  description:
    "So that an SDK whose defaults export metrics to the same endpoint (NodeSDK) reports no errors. Body: an OTLP ExportMetricsServiceRequest, protobuf or JSON, optionally gzip; a body that is not OTLP is a 400 naming the field.",
  response: ZMetricsExportResult, errors: [413, 415],
});

const ZConversationParams = z.object({ id: pathId("Conversation") });

export const listCapturedTurns = contract({
  tag, method: "GET", path: "/conversations/{id}/captures", scope: "conversations:read",
  summary: "The turns of a conversation captured over OTLP, oldest first (at most 1 000)",
  params: ZConversationParams, response: ZCapturedTurnList, errors: [404],
});

export const getSentVsModelled = contract({
  tag, method: "GET", path: "/conversations/{id}/captures/{message_id}", scope: "conversations:read",
  summary: "Sent vs modelled: the prompt the agent sent for a captured turn beside the one its profile computes, with the difference",
  description:
    "The modelled prompt is POST /context's assembly under the app's profile version in force at the turn (POST /replay's prompt when the conversation has an end user; without one, the same assembly without memories). " +
    "Both prompts are reduced to (role, text) lines; the histories are aligned message by message. Nothing is logged or marked accessed.",
  params: ZConversationParams.extend({ message_id: pathId("Message") }), response: ZSentVsModelled, errors: [404, 422],
});

export const CAPTURE_CONTRACTS = [exportTraces, exportLogs, exportMetrics, listCapturedTurns, getSentVsModelled];
