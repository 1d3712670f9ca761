-- Live capture over OpenTelemetry (issue 25, part 2): one row per GenAI chat span received
-- on POST /api/v1/traces. The span became a turn (messages.id = message_id); this row keeps
-- what the turn's two texts cannot: the exact input messages the agent sent to the model
-- (and its separate system instructions), the output messages, and where they came from.
-- (project_id, trace_id, span_id) makes a span sent twice one turn. Rows go with their turn.
-- The messages are JSON, not JSONB: kept as the text they were sent (an agent resends its
-- whole history with every call, so these are the largest writes of an ingest; JSON only
-- validates where JSONB would rebuild every value), stored uncompressed for the same reason.
CREATE TABLE "captured_spans" (
    "project_id" TEXT NOT NULL,
    "trace_id" TEXT NOT NULL,
    "span_id" TEXT NOT NULL,
    "conversation_id" UUID NOT NULL,
    "message_id" UUID NOT NULL,
    "conversation_key" TEXT,
    "operation" TEXT NOT NULL,
    "provider" TEXT,
    "request_model" TEXT,
    "response_model" TEXT,
    "message_form" TEXT NOT NULL,
    "system_instructions" JSON,
    "input_messages" JSON NOT NULL,
    "output_messages" JSON NOT NULL,
    "input_tokens" INTEGER,
    "output_tokens" INTEGER,
    "started_at" TIMESTAMPTZ(3) NOT NULL,
    "ended_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "captured_spans_pkey" PRIMARY KEY ("project_id", "trace_id", "span_id"),
    CONSTRAINT "captured_spans_message_fkey" FOREIGN KEY ("project_id", "message_id")
        REFERENCES "messages" ("project_id", "id") ON DELETE CASCADE,
    CONSTRAINT "captured_spans_message_form_check" CHECK ("message_form" IN ('attributes', 'events'))
);

ALTER TABLE "captured_spans" ALTER COLUMN "input_messages" SET STORAGE EXTERNAL,
                             ALTER COLUMN "output_messages" SET STORAGE EXTERNAL;

CREATE UNIQUE INDEX "captured_spans_project_id_message_id_key" ON "captured_spans" ("project_id", "message_id");
-- The captured turns of a conversation, in the order they were sent.
CREATE INDEX "captured_spans_project_id_conversation_id_started_at_idx"
    ON "captured_spans" ("project_id", "conversation_id", "started_at");
