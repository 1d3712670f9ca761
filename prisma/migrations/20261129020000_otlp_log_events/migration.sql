-- GenAI log events over OTLP (issue 35): instrumentations such as
-- @opentelemetry/instrumentation-openai send a chat span without content and its messages as
-- log records (POST /api/v1/logs) tied to it by trace and span id. Whichever half arrives
-- first waits here; the request that brings the other half writes the turn and deletes the
-- halves in one transaction. A half that waits longer than an hour is deleted by the next
-- ingest of its project (content capture off, or the other half was never exported).
-- part: 'span' (part_key '') or 'event' (part_key: a digest of the record, so an exporter's
-- retry is one row). payload: what capture reads of the half, as JSON.
CREATE TABLE "otlp_pending" (
    "project_id" TEXT NOT NULL,
    "trace_id" TEXT NOT NULL,
    "span_id" TEXT NOT NULL,
    "part" TEXT NOT NULL,
    "part_key" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "time_unix_nano" BIGINT NOT NULL,
    "payload" JSON NOT NULL,
    "received_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "otlp_pending_pkey" PRIMARY KEY ("project_id", "trace_id", "span_id", "part", "part_key"),
    CONSTRAINT "otlp_pending_part_check" CHECK ("part" IN ('span', 'event'))
);

CREATE INDEX "otlp_pending_project_id_received_at_idx" ON "otlp_pending" ("project_id", "received_at");

-- A turn made from log events, or from the Vercel AI SDK's ai.* spans, says so.
ALTER TABLE "captured_spans" DROP CONSTRAINT "captured_spans_message_form_check",
  ADD CONSTRAINT "captured_spans_message_form_check" CHECK ("message_form" IN ('attributes', 'events', 'logs', 'ai_sdk'));

-- Conversations without an id (issue 35): a call whose input begins with an earlier call's
-- input and output (same app, same system instructions) continues that call's conversation.
-- state_key: a digest of the app, the system instructions and the call's input followed by
-- its answer, so a later call finds it by the digests of its input's prefixes. Only set for
-- calls without gen_ai.conversation.id.
ALTER TABLE "captured_spans" ADD COLUMN "state_key" TEXT;
CREATE INDEX "captured_spans_project_id_state_key_idx" ON "captured_spans" ("project_id", "state_key") WHERE "state_key" IS NOT NULL;
