import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { freePort } from "./free-port";
import { startPgWireServer } from "./pg-wire-server";
import { connectPostgres } from "./real-postgres";

// A Dify database for import tests: a real PostgreSQL 15 server (initdb + pg_ctl as the
// postgres user, on 127.0.0.1 and a free port), or pglite-socket when no server is
// installed. DIFY_TABLES creates the tables the importer reads, column for column as
// Dify's models declare them (api/models/model.py: App, Conversation, Message,
// MessageFile, MessageFeedback, EndUser; StringUUID = uuid, db.DateTime = timestamp
// without time zone, holding UTC).

const PG_BIN = "/usr/lib/postgresql/15/bin";

export type DifyPostgres = { url: string; kind: "postgresql" | "pglite-socket"; stop(): Promise<void> };

export async function startDifyPostgres(): Promise<DifyPostgres> {
  if (!fs.existsSync(path.join(PG_BIN, "pg_ctl"))) {
    const w = await startPgWireServer();
    return { url: w.url, kind: "pglite-socket", stop: () => w.stop() };
  }
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "memscope-difypg-"));
  const data = path.join(dir, "data");
  const asRoot = process.getuid?.() === 0;
  if (asRoot) execFileSync("chown", ["-R", "postgres:postgres", dir]);
  const run = (cmd: string, args: string[]) =>
    asRoot ? execFileSync("runuser", ["-u", "postgres", "--", path.join(PG_BIN, cmd), ...args], { stdio: "pipe" }) : execFileSync(path.join(PG_BIN, cmd), args, { stdio: "pipe" });
  run("initdb", ["-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C.UTF-8"]);
  run("pg_ctl", ["-D", data, "-l", path.join(dir, "log"), "-w", "-t", "60", "-o", `-h 127.0.0.1 -p ${port} -k ${dir} -F`, "start"]);
  const admin = await connectPostgres(`postgres://postgres@127.0.0.1:${port}/postgres`);
  await admin.query("CREATE DATABASE dify");
  await admin.end();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/dify`,
    kind: "postgresql",
    async stop() {
      try {
        run("pg_ctl", ["-D", data, "-m", "fast", "-w", "stop"]);
      } catch {
        /* already down */
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Dify's tables the importer reads (columns and types from Dify's SQLAlchemy models). */
export const DIFY_TABLES = `
CREATE TABLE apps (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id uuid NOT NULL,
  name varchar(255) NOT NULL,
  description text NOT NULL DEFAULT '',
  mode varchar(255) NOT NULL,
  icon_type varchar(255), icon varchar(255), icon_background varchar(255),
  app_model_config_id uuid, workflow_id uuid,
  status varchar(255) NOT NULL DEFAULT 'normal',
  enable_site boolean NOT NULL, enable_api boolean NOT NULL,
  api_rpm integer NOT NULL DEFAULT 0, api_rph integer NOT NULL DEFAULT 0,
  is_demo boolean NOT NULL DEFAULT false, is_public boolean NOT NULL DEFAULT false, is_universal boolean NOT NULL DEFAULT false,
  tracing text, max_active_requests integer,
  created_by uuid, created_at timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP,
  updated_by uuid, updated_at timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP,
  use_icon_as_answer_icon boolean NOT NULL DEFAULT false
);
CREATE INDEX app_tenant_id_idx ON apps (tenant_id);

CREATE TABLE end_users (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id uuid NOT NULL,
  app_id uuid,
  type varchar(255) NOT NULL,
  external_user_id varchar(255),
  name varchar(255),
  is_anonymous boolean NOT NULL DEFAULT true,
  session_id varchar NOT NULL,
  created_at timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP,
  updated_at timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP
);
CREATE INDEX end_user_session_id_idx ON end_users (session_id, type);

CREATE TABLE conversations (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  app_id uuid NOT NULL,
  app_model_config_id uuid,
  model_provider varchar(255), override_model_configs text, model_id varchar(255),
  mode varchar(255) NOT NULL,
  name varchar(255) NOT NULL,
  summary text,
  inputs json,
  introduction text, system_instruction text,
  system_instruction_tokens integer NOT NULL DEFAULT 0,
  status varchar(255) NOT NULL,
  invoke_from varchar(255),
  from_source varchar(255) NOT NULL,
  from_end_user_id uuid, from_account_id uuid,
  read_at timestamp, read_account_id uuid,
  dialogue_count integer NOT NULL DEFAULT 0,
  created_at timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP,
  updated_at timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP,
  is_deleted boolean NOT NULL DEFAULT false
);
CREATE INDEX conversation_app_from_user_idx ON conversations (app_id, from_source, from_end_user_id);

CREATE TABLE messages (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  app_id uuid NOT NULL,
  model_provider varchar(255), model_id varchar(255), override_model_configs text,
  conversation_id uuid NOT NULL REFERENCES conversations (id),
  inputs json,
  query text NOT NULL,
  message json NOT NULL,
  message_tokens integer NOT NULL DEFAULT 0,
  message_unit_price numeric(10, 4) NOT NULL,
  message_price_unit numeric(10, 7) NOT NULL DEFAULT 0.001,
  answer text NOT NULL,
  answer_tokens integer NOT NULL DEFAULT 0,
  answer_unit_price numeric(10, 4) NOT NULL,
  answer_price_unit numeric(10, 7) NOT NULL DEFAULT 0.001,
  parent_message_id uuid,
  provider_response_latency double precision NOT NULL DEFAULT 0,
  total_price numeric(10, 7),
  currency varchar(255) NOT NULL,
  status varchar(255) NOT NULL DEFAULT 'normal',
  error text,
  message_metadata text,
  invoke_from varchar(255),
  from_source varchar(255) NOT NULL,
  from_end_user_id uuid, from_account_id uuid,
  created_at timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP,
  updated_at timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP,
  agent_based boolean NOT NULL DEFAULT false,
  workflow_run_id uuid
);
CREATE INDEX message_app_id_idx ON messages (app_id, created_at);
CREATE INDEX message_conversation_id_idx ON messages (conversation_id);
CREATE INDEX message_created_at_idx ON messages (created_at);

CREATE TABLE message_files (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  message_id uuid NOT NULL,
  type varchar(255) NOT NULL,
  transfer_method varchar(255) NOT NULL,
  url text,
  belongs_to varchar(255),
  upload_file_id uuid,
  created_by_role varchar(255) NOT NULL,
  created_by uuid NOT NULL,
  created_at timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP
);
CREATE INDEX message_file_message_idx ON message_files (message_id);

CREATE TABLE message_feedbacks (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  app_id uuid NOT NULL,
  conversation_id uuid NOT NULL,
  message_id uuid NOT NULL,
  rating varchar(255) NOT NULL,
  content text,
  from_source varchar(255) NOT NULL,
  from_end_user_id uuid, from_account_id uuid,
  created_at timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP,
  updated_at timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP
);
CREATE INDEX message_feedback_message_idx ON message_feedbacks (message_id, from_source);
`;

export async function withDifyClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = await connectPostgres(url);
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}
