-- Provenance (issue 11): the turn a memory was extracted from. Its conversation is
-- source_session_id; approving an extracted candidate now keeps the turn as well.
-- Nullable and without a foreign key, like source_session_id: older rows and memories
-- saved through the API have no turn, and a memory outlives its conversation.
ALTER TABLE "memories" ADD COLUMN "source_message_id" UUID;
