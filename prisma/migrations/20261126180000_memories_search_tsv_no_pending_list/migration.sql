-- The full-text index of memories without GIN's pending list (issue 22, performance).
-- With fastupdate on (the default) new entries wait in an unsorted pending list that only
-- VACUUM or a list past gin_pending_list_limit (4 MB) merges into the index. PGlite never
-- vacuums, so up to 4 MB of entries were read linearly by every full-text probe, and the
-- planner, pricing that, scanned every memory instead: the text candidates of a search of a
-- user with 10 000 memories took ~12 ms, 0.1 ms once the list was merged. Entries now go
-- straight into the index (each insert pays its few words), and the list left is merged.
ALTER INDEX "memories_search_tsv_idx" SET (fastupdate = off);
SELECT gin_clean_pending_list('memories_search_tsv_idx'::regclass);
