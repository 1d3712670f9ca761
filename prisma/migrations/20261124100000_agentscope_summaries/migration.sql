-- auto_context (AgentScope AutoContextMemory) summaries written by the chat model, kept so
-- that replaying a conversation again makes no model call: after a page reload, a restart,
-- or on another instance of the same database.

CREATE TABLE "agentscope_summaries" (
  "project_id" TEXT NOT NULL,
  -- the stored conversation replayed; '' for a pasted history (POST /window, inline /context)
  "conversation_id" TEXT NOT NULL,
  -- the model call (replay step) at which the summary was written
  "step" INTEGER NOT NULL,
  -- sha256 of the chat endpoint, the model, the strategy's event type and the messages sent;
  -- the auto_context settings that matter (what is compressed, the character budget) are in those messages
  "input_hash" TEXT NOT NULL,
  "model" TEXT NOT NULL,
  "summary" TEXT NOT NULL,
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

  CONSTRAINT "agentscope_summaries_pkey" PRIMARY KEY ("project_id", "conversation_id", "step", "input_hash")
);
