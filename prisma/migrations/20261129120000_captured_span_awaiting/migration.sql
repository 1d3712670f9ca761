-- Bytes per captured span (issue 35): the pred_key index held every call without a
-- conversation id (~62 bytes a span), but a call is looked up by its pred_key only while its
-- predecessor has not arrived (adoption, store-captures.ts adoptSuccessors): a call that found
-- it when stored (the usual case) never is. awaiting_pred marks the others, and only they are
-- indexed; adoption clears it. The calls that continued a moved call are found within its
-- conversation (the conversation index), not by this index.
ALTER TABLE "captured_spans" ADD COLUMN "awaiting_pred" BOOLEAN NOT NULL DEFAULT false;
UPDATE "captured_spans" s SET "awaiting_pred" = true
 WHERE s."pred_key" IS NOT NULL
   AND NOT EXISTS (SELECT 1 FROM "captured_spans" t WHERE t."project_id" = s."project_id" AND t."conversation_id" = s."conversation_id" AND t."state_key" = s."pred_key");
DROP INDEX "captured_spans_project_id_pred_key_idx";
CREATE INDEX "captured_spans_awaiting_pred_idx" ON "captured_spans" ("project_id", "pred_key") WHERE "awaiting_pred";
