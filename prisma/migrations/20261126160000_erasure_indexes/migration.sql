-- The erasure of a user (lib/privacy/erase-anchors.ts) deletes, per batch of the user's
-- memories or conversations, the rows that point at them by that column: without an index
-- each such statement read the whole table, once per batch (and the final check once more).
-- Other users' rows are the most of these tables, so a scan costs what the project holds,
-- not what the user holds.

-- Review items by the memories they are about, and by the conversation they came from.
CREATE INDEX "memory_review_items_project_id_memory_id_idx" ON "memory_review_items" ("project_id", "memory_id");
CREATE INDEX "memory_review_items_project_id_other_memory_id_idx" ON "memory_review_items" ("project_id", "other_memory_id");
CREATE INDEX "memory_review_items_project_id_source_session_id_idx" ON "memory_review_items" ("project_id", "source_session_id");

-- Offloaded contents cut from a conversation (erasure, and retention's "delete conversations").
CREATE INDEX "offloaded_contents_project_id_conversation_id_idx" ON "offloaded_contents" ("project_id", "conversation_id");

-- Vectors by their user: a memory's vectors go with it (by memory_id); these find a vector
-- left without its memory, and tell that none is left (the final check) without reading
-- every vector of the project.
CREATE INDEX "memory_embeddings_project_id_user_id_idx" ON "memory_embeddings" ("project_id", "user_id");

-- Eval cases asked for a user, and their results in runs.
CREATE INDEX "eval_cases_project_id_user_id_idx" ON "eval_cases" ("project_id", "user_id");
CREATE INDEX "eval_run_cases_project_id_case_id_idx" ON "eval_run_cases" ("project_id", "case_id");
