-- Several app instances on one database: the instance running a re-embedding job holds a
-- lease on it (renewed by a heartbeat); a job whose lease expired (its instance died) is
-- taken over by another instance and resumed from its checkpoint.
ALTER TABLE "embedding_jobs" ADD COLUMN "lease_owner" TEXT;
ALTER TABLE "embedding_jobs" ADD COLUMN "lease_expires_at" TIMESTAMPTZ(3);
