-- Bytes per captured span (issue 35: at most 2x the span's new messages). A captured span is
-- found by its turn's id: the turn of a span is stored under messageIdOf(trace_id, span_id)
-- (store-captures.ts), so a resent span is recognised by that id, and the primary key on
-- (project_id, message_id) replaces both the key on (project_id, trace_id, span_id) and the
-- unique index on (project_id, message_id) (~115 bytes a span). The conversation's captured
-- spans are reached through its turns (messages' (project_id, conversation_id, ...) index),
-- so their own conversation index goes (~70 bytes). What the turn's metadata.otlp already
-- holds (trace_id, span_id, operation, provider, request_model, response_model) is read from
-- there, and finish_reasons is JSON text (`["1:stop"]`: ~11 bytes where text[] took ~33).
-- The span's values are copied onto its turn's metadata.otlp first (they win where they
-- differ, as the readers read them from the span until now; turns of older versions may lack them).
UPDATE "messages" m
   SET "metadata" = jsonb_set(
         coalesce(m."metadata", '{}'::jsonb), '{otlp}',
         CASE WHEN jsonb_typeof(m."metadata" -> 'otlp') = 'object' THEN m."metadata" -> 'otlp' ELSE '{}'::jsonb END
         || jsonb_strip_nulls(jsonb_build_object(
              'trace_id', s."trace_id", 'span_id', s."span_id", 'operation', s."operation",
              'provider', s."provider", 'request_model', s."request_model", 'response_model', s."response_model")))
  FROM "captured_spans" s
 WHERE s."project_id" = m."project_id" AND s."message_id" = m."id"
   AND (m."metadata" -> 'otlp' ->> 'trace_id' IS DISTINCT FROM s."trace_id"
     OR m."metadata" -> 'otlp' ->> 'span_id' IS DISTINCT FROM s."span_id"
     OR m."metadata" -> 'otlp' ->> 'operation' IS DISTINCT FROM s."operation"
     OR (s."provider" IS NOT NULL AND m."metadata" -> 'otlp' ->> 'provider' IS DISTINCT FROM s."provider")
     OR (s."request_model" IS NOT NULL AND m."metadata" -> 'otlp' ->> 'request_model' IS DISTINCT FROM s."request_model")
     OR (s."response_model" IS NOT NULL AND m."metadata" -> 'otlp' ->> 'response_model' IS DISTINCT FROM s."response_model"));

ALTER TABLE "captured_spans" DROP CONSTRAINT "captured_spans_pkey";
DROP INDEX "captured_spans_project_id_message_id_key";
DROP INDEX "captured_spans_project_id_conversation_id_started_at_idx";
ALTER TABLE "captured_spans" ADD CONSTRAINT "captured_spans_pkey" PRIMARY KEY ("project_id", "message_id");
ALTER TABLE "captured_spans" ALTER COLUMN "finish_reasons" TYPE JSON USING to_json("finish_reasons");
ALTER TABLE "captured_spans" DROP COLUMN "trace_id", DROP COLUMN "span_id", DROP COLUMN "operation",
                             DROP COLUMN "provider", DROP COLUMN "request_model", DROP COLUMN "response_model";
