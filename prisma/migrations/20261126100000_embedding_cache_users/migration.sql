-- Whose as-of search put a text in the embedding cache (lib/embeddings/embedding-cache.ts).
-- The cache is keyed by content hash, so a user's erasure finds its rows by hashing the user's
-- texts (lib/privacy/user-tables.ts); a search query that was never logged (an as-of search
-- logs no retrieval) is no text of the user's, and its vector stayed after the erasure. Each
-- text an as-of search of a user looks up in the cache is noted here, and the user's erasure
-- drops those cache rows and these notes.
CREATE TABLE "embedding_cache_users" (
    "project_id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "content_hash" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "embedding_cache_users_pkey" PRIMARY KEY ("project_id", "user_id", "content_hash")
);

-- Writes for a user being erased fail (the write guard of 20261126010000_privacy).
CREATE TRIGGER "privacy_guard_insert" AFTER INSERT ON "embedding_cache_users" REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "privacy_guard_user_id"();
