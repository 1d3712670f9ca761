-- Agent profiles (issue 22, part 2): the settings an agent ran with, per app_id, versioned.
-- A change never updates a row: it inserts the next version with the instant it took
-- effect, so "the profile in force at a turn" is the newest version whose effective_from
-- is at or before the turn's time (a replay reads it). `settings` holds model, strategy
-- and its parameters, memory options, system prompt and reserved output as the API gives
-- them (lib/profiles/schemas.ts); the application validates it on write.
CREATE TABLE "agent_profile_versions" (
    "project_id" TEXT NOT NULL,
    "app_id" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "effective_from" TIMESTAMPTZ(3) NOT NULL,
    "settings" JSONB NOT NULL,
    "note" TEXT,
    "created_by" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "agent_profile_versions_pkey" PRIMARY KEY ("project_id", "app_id", "version"),
    CONSTRAINT "agent_profile_versions_version_check" CHECK ("version" >= 1)
);

-- The version in force at an instant: the newest effective_from at or before it.
CREATE INDEX "agent_profile_versions_project_id_app_id_effective_from_idx"
    ON "agent_profile_versions" ("project_id", "app_id", "effective_from" DESC, "version" DESC);

-- A replay looks for the retrieval logged for its conversation around the turn.
CREATE INDEX "memory_retrievals_project_id_conversation_id_created_at_idx"
    ON "memory_retrievals" ("project_id", "conversation_id", "created_at");
