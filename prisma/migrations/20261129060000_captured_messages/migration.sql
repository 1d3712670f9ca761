-- Captured prompts stored once (issue 35, item 5). An agent resends its whole history with
-- every call, so keeping each span's input as one JSON value stored a 20-turn conversation's
-- history 20 times (O(n^2) bytes). Each message is now a node of a tree per conversation:
-- its id is a digest of its parent's id and the message's JSON text, so call n+1's input,
-- which begins with call n's input and answer, finds those nodes stored and adds only its
-- new ones. A captured span keeps the id of the last node of its input followed by its
-- output (prompt_node), how many of the chain's messages are input and output, and the node
-- of its system instructions. Nodes belong to their conversation (deleted with it), so an
-- erasure or a retention run takes them with the conversation; no node is shared between
-- conversations or end users.
--   id = first 32 hex digits of sha256((parent id as text, or '') || ':' || sha256 hex of the message's JSON)
--   system node id = first 32 hex digits of sha256('system:' || sha256 hex of the instructions' JSON)
CREATE TABLE "captured_messages" (
    "project_id" TEXT NOT NULL,
    "conversation_id" UUID NOT NULL,
    "id" UUID NOT NULL,
    "parent_id" UUID,
    "position" INTEGER NOT NULL,
    "body" JSON NOT NULL,

    CONSTRAINT "captured_messages_pkey" PRIMARY KEY ("project_id", "conversation_id", "id"),
    CONSTRAINT "captured_messages_conversation_fkey" FOREIGN KEY ("project_id", "conversation_id")
        REFERENCES "conversations" ("project_id", "id") ON DELETE CASCADE
);

ALTER TABLE "captured_spans" ADD COLUMN "prompt_node" UUID,
                             ADD COLUMN "system_node" UUID,
                             ADD COLUMN "input_count" INTEGER NOT NULL DEFAULT 0,
                             ADD COLUMN "output_count" INTEGER NOT NULL DEFAULT 0;

-- The captured prompts stored so far, moved: each span's input then output messages as a chain.
WITH RECURSIVE els AS (
  SELECT s.project_id, s.trace_id, s.span_id, s.conversation_id, e.body, (e.n - 1)::int AS pos
    FROM captured_spans s, json_array_elements(s.input_messages) WITH ORDINALITY AS e(body, n)
  UNION ALL
  SELECT s.project_id, s.trace_id, s.span_id, s.conversation_id, e.body, (json_array_length(s.input_messages) + e.n - 1)::int
    FROM captured_spans s, json_array_elements(s.output_messages) WITH ORDINALITY AS e(body, n)
),
chain AS (
  SELECT e.project_id, e.trace_id, e.span_id, e.conversation_id, e.pos, e.body, NULL::uuid AS parent_id,
         substr(encode(sha256(convert_to(':' || encode(sha256(convert_to(e.body::text, 'UTF8')), 'hex'), 'UTF8')), 'hex'), 1, 32)::uuid AS id
    FROM els e WHERE e.pos = 0
  UNION ALL
  SELECT e.project_id, e.trace_id, e.span_id, e.conversation_id, e.pos, e.body, c.id,
         substr(encode(sha256(convert_to(c.id::text || ':' || encode(sha256(convert_to(e.body::text, 'UTF8')), 'hex'), 'UTF8')), 'hex'), 1, 32)::uuid
    FROM chain c JOIN els e ON e.project_id = c.project_id AND e.trace_id = c.trace_id AND e.span_id = c.span_id AND e.pos = c.pos + 1
),
nodes AS (
  INSERT INTO "captured_messages" ("project_id", "conversation_id", "id", "parent_id", "position", "body")
  SELECT DISTINCT ON (project_id, conversation_id, id) project_id, conversation_id, id, parent_id, pos, body
    FROM chain ORDER BY project_id, conversation_id, id
  ON CONFLICT DO NOTHING
)
UPDATE "captured_spans" s SET "prompt_node" = last.id
  FROM (SELECT DISTINCT ON (project_id, trace_id, span_id) project_id, trace_id, span_id, id FROM chain ORDER BY project_id, trace_id, span_id, pos DESC) last
 WHERE s.project_id = last.project_id AND s.trace_id = last.trace_id AND s.span_id = last.span_id;

UPDATE "captured_spans" SET "input_count" = json_array_length("input_messages"), "output_count" = json_array_length("output_messages");

INSERT INTO "captured_messages" ("project_id", "conversation_id", "id", "parent_id", "position", "body")
SELECT DISTINCT ON (project_id, conversation_id, id) project_id, conversation_id, id, NULL, 0, system_instructions
  FROM (SELECT project_id, conversation_id, system_instructions,
               substr(encode(sha256(convert_to('system:' || encode(sha256(convert_to(system_instructions::text, 'UTF8')), 'hex'), 'UTF8')), 'hex'), 1, 32)::uuid AS id
          FROM captured_spans WHERE system_instructions IS NOT NULL) x
 ORDER BY project_id, conversation_id, id
ON CONFLICT DO NOTHING;

UPDATE "captured_spans"
   SET "system_node" = substr(encode(sha256(convert_to('system:' || encode(sha256(convert_to(system_instructions::text, 'UTF8')), 'hex'), 'UTF8')), 'hex'), 1, 32)::uuid
 WHERE system_instructions IS NOT NULL;

ALTER TABLE "captured_spans" DROP COLUMN "system_instructions",
                             DROP COLUMN "input_messages",
                             DROP COLUMN "output_messages";

-- A half of a turn waiting for the other (otlp_pending) names its end user when it or its
-- span does (user.id, enduser.id), so a user erasure reaches it before the turn is written.
ALTER TABLE "otlp_pending" ADD COLUMN "end_user_id" TEXT;
CREATE INDEX "otlp_pending_project_id_end_user_id_idx" ON "otlp_pending" ("project_id", "end_user_id");
