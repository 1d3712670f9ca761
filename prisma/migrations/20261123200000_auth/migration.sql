-- Accounts, projects (better-auth organizations), members, invitations and API keys.
-- Mirrors the models appended to prisma/schema.prisma; ids are better-auth's text ids.

CREATE TABLE "users" (
  "id" TEXT PRIMARY KEY,
  "name" TEXT NOT NULL,
  "email" TEXT NOT NULL,
  "email_verified" BOOLEAN NOT NULL DEFAULT false,
  "image" TEXT,
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX "users_email_key" ON "users" ("email");

CREATE TABLE "sessions" (
  "id" TEXT PRIMARY KEY,
  "expires_at" TIMESTAMPTZ(3) NOT NULL,
  "token" TEXT NOT NULL,
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "updated_at" TIMESTAMPTZ(3) NOT NULL,
  "ip_address" TEXT,
  "user_agent" TEXT,
  "user_id" TEXT NOT NULL REFERENCES "users" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
  "active_organization_id" TEXT
);
CREATE UNIQUE INDEX "sessions_token_key" ON "sessions" ("token");
CREATE INDEX "sessions_user_id_idx" ON "sessions" ("user_id");

CREATE TABLE "auth_accounts" (
  "id" TEXT PRIMARY KEY,
  "account_id" TEXT NOT NULL,
  "provider_id" TEXT NOT NULL,
  "user_id" TEXT NOT NULL REFERENCES "users" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
  "access_token" TEXT,
  "refresh_token" TEXT,
  "id_token" TEXT,
  "access_token_expires_at" TIMESTAMPTZ(3),
  "refresh_token_expires_at" TIMESTAMPTZ(3),
  "scope" TEXT,
  "password" TEXT,
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "updated_at" TIMESTAMPTZ(3) NOT NULL
);
CREATE INDEX "auth_accounts_user_id_idx" ON "auth_accounts" ("user_id");

CREATE TABLE "verifications" (
  "id" TEXT PRIMARY KEY,
  "identifier" TEXT NOT NULL,
  "value" TEXT NOT NULL,
  "expires_at" TIMESTAMPTZ(3) NOT NULL,
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now()
);
CREATE INDEX "verifications_identifier_idx" ON "verifications" ("identifier");

CREATE TABLE "projects" (
  "id" TEXT PRIMARY KEY,
  "name" TEXT NOT NULL,
  "slug" TEXT NOT NULL,
  "logo" TEXT,
  "created_at" TIMESTAMPTZ(3) NOT NULL,
  "metadata" TEXT
);
CREATE UNIQUE INDEX "projects_slug_key" ON "projects" ("slug");

-- Everything stored before projects existed belongs here (20261123201000_project_scope).
INSERT INTO "projects" ("id", "name", "slug", "created_at") VALUES ('default', 'Default', 'default', now());

CREATE TABLE "project_members" (
  "id" TEXT PRIMARY KEY,
  "project_id" TEXT NOT NULL REFERENCES "projects" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
  "user_id" TEXT NOT NULL REFERENCES "users" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
  "role" TEXT NOT NULL DEFAULT 'member',
  "created_at" TIMESTAMPTZ(3) NOT NULL
);
CREATE INDEX "project_members_project_id_idx" ON "project_members" ("project_id");
CREATE INDEX "project_members_user_id_idx" ON "project_members" ("user_id");

CREATE TABLE "project_invitations" (
  "id" TEXT PRIMARY KEY,
  "project_id" TEXT NOT NULL REFERENCES "projects" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
  "email" TEXT NOT NULL,
  "role" TEXT,
  "status" TEXT NOT NULL DEFAULT 'pending',
  "expires_at" TIMESTAMPTZ(3) NOT NULL,
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
  "inviter_id" TEXT NOT NULL REFERENCES "users" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "project_invitations_project_id_idx" ON "project_invitations" ("project_id");
CREATE INDEX "project_invitations_email_idx" ON "project_invitations" ("email");

CREATE TABLE "api_keys" (
  "id" TEXT PRIMARY KEY,
  "config_id" TEXT NOT NULL DEFAULT 'default',
  "name" TEXT,
  "start" TEXT,
  "project_id" TEXT NOT NULL,
  "prefix" TEXT,
  "key" TEXT NOT NULL,
  "refill_interval" INTEGER,
  "refill_amount" INTEGER,
  "last_refill_at" TIMESTAMPTZ(3),
  "enabled" BOOLEAN DEFAULT true,
  "rate_limit_enabled" BOOLEAN DEFAULT true,
  "rate_limit_time_window" INTEGER,
  "rate_limit_max" INTEGER,
  "request_count" INTEGER DEFAULT 0,
  "remaining" INTEGER,
  "last_request" TIMESTAMPTZ(3),
  "expires_at" TIMESTAMPTZ(3),
  "created_at" TIMESTAMPTZ(3) NOT NULL,
  "updated_at" TIMESTAMPTZ(3) NOT NULL,
  "permissions" TEXT,
  "metadata" TEXT
);
CREATE INDEX "api_keys_config_id_idx" ON "api_keys" ("config_id");
CREATE INDEX "api_keys_project_id_idx" ON "api_keys" ("project_id");
CREATE INDEX "api_keys_key_idx" ON "api_keys" ("key");

CREATE TABLE "audit_events" (
  "id" UUID PRIMARY KEY,
  "project_id" TEXT NOT NULL,
  "action" TEXT NOT NULL,
  "actor" TEXT NOT NULL,
  "target" TEXT NOT NULL,
  "details" JSONB,
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now()
);
CREATE INDEX "audit_events_project_id_created_at_idx" ON "audit_events" ("project_id", "created_at" DESC);

CREATE TABLE "auth_settings" (
  "key" TEXT PRIMARY KEY,
  "value" TEXT NOT NULL,
  "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now()
);
