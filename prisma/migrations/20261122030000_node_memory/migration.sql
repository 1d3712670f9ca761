-- Node-level memory (Dify NodeTokenBufferMemory): one JSON document (format version 1)
-- per (app_id, conversation_id, node_id). Writers use optimistic versioning: read the
-- row's version, append, UPDATE ... WHERE version = $read, retry on a miss.

-- CreateTable
CREATE TABLE "node_memories" (
    "conversation_id" UUID NOT NULL,
    "node_id" TEXT NOT NULL,
    "app_id" TEXT NOT NULL,
    "version" INTEGER NOT NULL DEFAULT 1,
    "document" JSONB NOT NULL,
    "message_count" INTEGER NOT NULL DEFAULT 0,
    "token_count" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "node_memories_pkey" PRIMARY KEY ("conversation_id", "node_id")
);

-- AddForeignKey
ALTER TABLE "node_memories" ADD CONSTRAINT "node_memories_conversation_id_fkey"
    FOREIGN KEY ("conversation_id") REFERENCES "conversations"("id") ON DELETE CASCADE ON UPDATE CASCADE;
