-- Conversations without an id joined whatever the export order (issue 35, item 2), and an
-- answer stored once (item 5).
--
-- pred_key: the digest a call's input begins with when its predecessor is the call whose
-- input and answer that beginning is (the predecessor's state_key). A call stored before its
-- predecessor starts a conversation of its own; when the predecessor arrives, it finds the
-- call by this key and takes it, and the calls that followed it, into its conversation (in
-- the transaction that stores it). Both keys are UUIDs (the first 32 hex digits of the
-- digest): 16 bytes where the hex text took 65, in the row and in each index.
--
-- finish_reasons: each output message's finish_reason, kept on the span. The output is
-- chained into captured_messages without it, as the next call resends the answer, so the
-- next call's input finds that node stored instead of storing the answer a second time.
-- The keys are now digested message by message (each prefix's key from the one before it,
-- store-captures.ts chainKeys): the stored ones, of the earlier form, are cleared, as no new
-- call computes them (a conversation in flight across the upgrade continues as a new one).
ALTER TABLE "captured_spans" ALTER COLUMN "state_key" TYPE UUID USING NULL;
ALTER TABLE "captured_spans" ADD COLUMN "pred_key" UUID,
                             ADD COLUMN "finish_reasons" TEXT[];
CREATE INDEX "captured_spans_project_id_pred_key_idx" ON "captured_spans" ("project_id", "pred_key") WHERE "pred_key" IS NOT NULL;
