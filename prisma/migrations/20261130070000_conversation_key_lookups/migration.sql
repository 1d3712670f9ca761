-- Foreign-key checks into conversations look a row up by (project_id, id). PostgreSQL plans that
-- lookup once per connection and keeps the plan; on a young table (no statistics yet) every index
-- that begins with project_id looked as good as the primary key, and the smaller
-- (project_id, end_user_id) won: each check then walked all of the project's conversations and
-- their old row versions (4 608 index entries a check after ten OTLP exports of 256 agents, 100 us
-- where the key takes 4). A partial index cannot serve a lookup that says nothing of
-- end_user_id, so the primary key is the only candidate of its size. An erasure's lookups name
-- the end user, which implies end_user_id IS NOT NULL: they still use it.
DROP INDEX "conversations_project_id_end_user_id_idx";
CREATE INDEX "conversations_project_id_end_user_id_idx" ON "conversations" ("project_id", "end_user_id") WHERE "end_user_id" IS NOT NULL;
