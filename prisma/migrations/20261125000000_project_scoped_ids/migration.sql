-- Conversation and message ids are unique per project, not across projects. A client picks
-- these ids (POST /conversations, /messages, /messages/batch, imports keep a source's ids);
-- while they were unique across projects, an id another project held answered 409 "already
-- exists", telling the caller that some other project had it. Now every key of these tables,
-- and of the rows that reference them, leads with project_id: project B can create
-- conversation X while project A has X, and each reads, changes and appends only to its own.
-- Foreign keys carry project_id too, so a row can only point at a row of its own project.
-- Existing rows keep their ids and projects (ids were unique, so they stay unique per project).

-- A message's project is its conversation's, a file's is its message's, a node memory's is
-- its conversation's: every writer wrote them so; this makes sure before the keys rely on it.
-- (Ids are still unique across projects at this point, so these joins are unambiguous.)
UPDATE "messages" m SET "project_id" = c."project_id"
  FROM "conversations" c WHERE c."id" = m."conversation_id" AND m."project_id" <> c."project_id";
UPDATE "message_files" f SET "project_id" = m."project_id"
  FROM "messages" m WHERE m."id" = f."message_id" AND f."project_id" <> m."project_id";
UPDATE "node_memories" n SET "project_id" = c."project_id"
  FROM "conversations" c WHERE c."id" = n."conversation_id" AND n."project_id" <> c."project_id";

-- Foreign keys on the bare ids go first (they depend on the primary keys being replaced).
ALTER TABLE "messages" DROP CONSTRAINT "messages_conversation_id_fkey";
ALTER TABLE "message_files" DROP CONSTRAINT "message_files_message_id_fkey";
ALTER TABLE "node_memories" DROP CONSTRAINT "node_memories_conversation_id_fkey";

ALTER TABLE "conversations" DROP CONSTRAINT "conversations_pkey";
ALTER TABLE "conversations" ADD CONSTRAINT "conversations_pkey" PRIMARY KEY ("project_id", "id");

ALTER TABLE "messages" DROP CONSTRAINT "messages_pkey";
ALTER TABLE "messages" ADD CONSTRAINT "messages_pkey" PRIMARY KEY ("project_id", "id");

ALTER TABLE "message_files" DROP CONSTRAINT "message_files_pkey";
ALTER TABLE "message_files" ADD CONSTRAINT "message_files_pkey" PRIMARY KEY ("project_id", "id");

ALTER TABLE "node_memories" DROP CONSTRAINT "node_memories_pkey";
ALTER TABLE "node_memories" ADD CONSTRAINT "node_memories_pkey" PRIMARY KEY ("project_id", "conversation_id", "node_id");

-- The thread, window, list and tree reads: (project, conversation, ...) instead of (conversation, ...).
DROP INDEX "messages_conversation_id_created_at_seq_idx";
CREATE INDEX "messages_project_id_conversation_id_created_at_seq_idx" ON "messages" ("project_id", "conversation_id", "created_at" DESC, "seq" DESC);
DROP INDEX "messages_conversation_id_tree_parent_id_idx";
CREATE INDEX "messages_project_id_conversation_id_tree_parent_id_idx" ON "messages" ("project_id", "conversation_id", "tree_parent_id");
DROP INDEX "message_files_message_id_position_idx";
CREATE INDEX "message_files_project_id_message_id_position_idx" ON "message_files" ("project_id", "message_id", "position");

ALTER TABLE "messages" ADD CONSTRAINT "messages_project_id_conversation_id_fkey"
  FOREIGN KEY ("project_id", "conversation_id") REFERENCES "conversations" ("project_id", "id") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "message_files" ADD CONSTRAINT "message_files_project_id_message_id_fkey"
  FOREIGN KEY ("project_id", "message_id") REFERENCES "messages" ("project_id", "id") ON DELETE RESTRICT ON UPDATE CASCADE;
ALTER TABLE "node_memories" ADD CONSTRAINT "node_memories_project_id_conversation_id_fkey"
  FOREIGN KEY ("project_id", "conversation_id") REFERENCES "conversations" ("project_id", "id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Where an imported record landed, looked up by the local row within the project.
DROP INDEX "import_external_ids_local_idx";
CREATE INDEX "import_external_ids_project_id_local_id_idx" ON "import_external_ids" ("project_id", "local_id");
